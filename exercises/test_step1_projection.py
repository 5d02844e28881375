"""Public tests of step 1: Projections: Q, K, V from Z · 投影：由 Z 得到 Q、K、V

Run: pytest exercises/test_step1_projection.py   (all steps: pytest exercises)
The cases are in the kit's catalogue, src/attnkit/data/cases/step1_projection.yaml.

第 1 步的公开测试。运行：pytest exercises/test_step1_projection.py（所有步骤：pytest exercises）。
用例在本套工具的用例目录 src/attnkit/data/cases/step1_projection.yaml 里。
"""
from attnkit.public import case_test

test_project = case_test("step1_projection", "project")
test_project_qkv = case_test("step1_projection", "project_qkv")
