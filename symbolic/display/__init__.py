"""What a person reads: a verdict and a report as text, the same from ``print`` in Python as from
the command line; tables fitted to the terminal's width (``PLAIN_WIDTH`` when the output is not
a terminal), long cells cut with an ellipsis, the summary line last."""
from symbolic.display.reports import report_text, results_text, steps, steps_json, summary
from symbolic.display.tables import ELLIPSIS, PLAIN_WIDTH, counted, cut, output_width, table
from symbolic.printing.verdicts import verdict_text

__all__ = ["report_text", "results_text", "steps", "steps_json", "summary", "ELLIPSIS", "PLAIN_WIDTH", "counted",
           "cut", "output_width", "table", "verdict_text"]
