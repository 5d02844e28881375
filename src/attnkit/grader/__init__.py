"""The grader: run a submission in a sandbox, judge it in this process, report points and diagnoses."""
