"""Public tests of step 5: Values: O = P V · Value：O = P V

Run: pytest exercises/test_step5_values.py   (all steps: pytest exercises)
The cases are in the kit's catalogue, src/attnkit/data/cases/step5_values.yaml.

第 5 步的公开测试。运行：pytest exercises/test_step5_values.py（所有步骤：pytest exercises）。
用例在本套工具的用例目录 src/attnkit/data/cases/step5_values.yaml 里。
"""
from attnkit.public import case_test

test_weighted_sum = case_test("step5_values", "weighted_sum")
