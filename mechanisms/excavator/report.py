"""The report of an excavator run: the generic one (:mod:`mechanisms.machine.report`).

Examples
--------
>>> callable(text_report)
True
"""

from ..machine.report import text_report

__all__ = ["text_report"]
