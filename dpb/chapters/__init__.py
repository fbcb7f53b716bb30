"""The numbers of the book's chapters, one module a chapter.

A chapter ``book/chNN_<topic>.ipynb`` has up to three modules of its own, named by its topic:
``dpb.chapters.<topic>`` computes the numbers only that chapter shows (its tables, the data of its
figures), ``dpb.plotting.<topic>`` draws them and ``dpb.widgets.<topic>`` makes them live.  They
import the concept modules (:mod:`dpb.concentration`, :mod:`dpb.batching`, ...), which hold the
formulas and general tools and never a chapter's choices.
"""
