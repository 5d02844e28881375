"""Public tests of step 4: Softmax: scores become weights, stable and safe for fully masked rows · Softmax：分数变成权重，数值稳定，全被掩码的行也安全

Run: pytest exercises/test_step4_softmax.py   (all steps: pytest exercises)
The cases are in the kit's catalogue, src/attnkit/data/cases/step4_softmax.yaml.

第 4 步的公开测试。运行：pytest exercises/test_step4_softmax.py（所有步骤：pytest exercises）。
用例在本套工具的用例目录 src/attnkit/data/cases/step4_softmax.yaml 里。
"""
from attnkit.public import case_test

test_softmax = case_test("step4_softmax", "softmax")
