"""Public tests of step 2: Scores: kq = Q Kᵀ and the 1/sqrt(D_h) scale · 分数：kq = Q Kᵀ 与 1/sqrt(D_h) 缩放

Run: pytest exercises/test_step2_scores.py   (all steps: pytest exercises)
The cases are in the kit's catalogue, src/attnkit/data/cases/step2_scores.yaml.

第 2 步的公开测试。运行：pytest exercises/test_step2_scores.py（所有步骤：pytest exercises）。
用例在本套工具的用例目录 src/attnkit/data/cases/step2_scores.yaml 里。
"""
from attnkit.public import case_test

test_raw_scores = case_test("step2_scores", "raw_scores")
test_scale_scores = case_test("step2_scores", "scale_scores")
