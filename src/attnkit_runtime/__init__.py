"""What a learner receives besides the exercises: the judging core, the loader, the messages in both
languages, the progress ladder, the release's pytest plugin and the notebook's checks.

Standard library and numpy only (pytest for the release's plugin); it never imports `attnkit`, the
instructor's side (reference solutions, hidden cases, the mistake catalogue, the grader). The kit
depends on it; `attnkit release` ships this folder as it is, the nbgrader course puts it beside the
notebook, and the grader's sandbox child imports it.
"""
