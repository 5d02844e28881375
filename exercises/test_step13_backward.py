"""Public tests of step 13: The backward pass of one head: dQ, dK, dV from dO · 一个 Head 的反向传播：由 dO 求 dQ、dK、dV

Run: pytest exercises/test_step13_backward.py   (all steps: pytest exercises)
The cases are in the kit's catalogue, src/attnkit/data/cases/step13_backward.yaml.

第 13 步的公开测试。运行：pytest exercises/test_step13_backward.py（所有步骤：pytest exercises）。
用例在本套工具的用例目录 src/attnkit/data/cases/step13_backward.yaml 里。
"""
from attnkit.public import case_test

test_softmax_backward = case_test("step13_backward", "softmax_backward")
test_attention_backward = case_test("step13_backward", "attention_backward")
