"""Public tests of step 2: Scores: kq = Q Kᵀ and the 1/sqrt(D_h) scale · 分数：kq = Q Kᵀ 与 1/sqrt(D_h) 缩放

Run: pytest exercises/test_step2_scores.py   (all steps: pytest exercises)
The cases are in the kit's catalogue, src/attnkit/data/cases/step2_scores.yaml.
"""
from attnkit.public import case_test

test_raw_scores = case_test("step2_scores", "raw_scores")
test_scale_scores = case_test("step2_scores", "scale_scores")
