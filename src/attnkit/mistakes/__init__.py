"""Known mistakes and the diagnosis of a failing test (issue 3, point 4).

`catalogue()` lists the mistakes by their stable codes (docs/CONTRACT.md); `mistaken_function` gives a reference
function as it behaves with one mistake made
(`slip_overrides`: every function, for each way of making it); `diagnose` and `diagnose_exception` name the mistake
whose output (or error) on a case's calls matches the learner's (`diagnoses`, `exception_diagnoses`: every one the
case cannot tell apart from it); `describe` is the text to show
(`descriptions`: in every language, for what a release or a notebook stores).
"""
from .catalogue import Mistake, catalogue, describe, descriptions
from .diagnosis import (Outcome, diagnose, diagnose_exception, diagnoses, exception_diagnoses, failing,
                        memory_diagnoses, outcomes, prepare)
from .worlds import mistaken_function, slip_overrides, slip_step, variants

__all__ = ["Mistake", "Outcome", "catalogue", "describe", "descriptions", "diagnose", "diagnose_exception", "diagnoses",
           "exception_diagnoses", "failing", "memory_diagnoses",
           "mistaken_function", "outcomes", "prepare", "slip_overrides", "slip_step", "variants"]
