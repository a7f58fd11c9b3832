"""What the file check found, from the status bar's warning: every problem, a failed fact as a link
that opens it in the inspector (where it is marked and curation is off).

Signals: ``fact_chosen(int)``.
"""

from __future__ import annotations

import html
import re

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QTextBrowser, QVBoxLayout, QWidget

from engine import Verification

_FACT = re.compile(r"^facts: fact (\d+): ")


def _line(problem: str) -> str:
    found = _FACT.match(problem)
    if found is None:
        return html.escape(problem)
    fact_id = found.group(1)
    return f"<a href='fact:{fact_id}'>fact {fact_id}</a>: {html.escape(problem[found.end():])}"


class VerifyReport(QDialog):
    fact_chosen = Signal(int)

    def __init__(self, verdict: Verification, path: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("File check")
        self.setObjectName("verifyReport")
        self.resize(720, 380)
        count = len(verdict.problems)
        failed = sorted({p.fact_id for p in verdict.problems if p.fact_id is not None})
        lead = QLabel(f"'memlens verify' found {count} problem{'s' * (count != 1)} in {html.escape(path)}."
                      + (f" {len(failed)} fact{'s' * (len(failed) != 1)} failed: click one to inspect it."
                         if failed else ""), wordWrap=True)
        self.failed = failed
        self.browser = QTextBrowser(openLinks=False)
        self.browser.setHtml("<ul>" + "".join(f"<li>{_line(str(p))}</li>" for p in verdict.problems) + "</ul>"
                             "<p>The file is left as it is. Restore it from a backup or an export "
                             "(<code>memlens export</code>) once you know what changed it.</p>")
        self.browser.anchorClicked.connect(lambda url: self.fact_chosen.emit(int(url.toString().split(":")[1])))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(lead)
        layout.addWidget(self.browser, 1)
        layout.addWidget(buttons)
