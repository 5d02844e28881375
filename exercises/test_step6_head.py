"""Public tests of step 6: One head: S = kq / sqrt(D_h) + M, P = softmax(S), O = P V · 一个 Head：S = kq / sqrt(D_h) + M，P = softmax(S)，O = P V

Run: pytest exercises/test_step6_head.py   (all steps: pytest exercises)
The cases are in the kit's catalogue, src/attnkit/data/cases/step6_head.yaml.

第 6 步的公开测试。运行：pytest exercises/test_step6_head.py（所有步骤：pytest exercises）。
用例在本套工具的用例目录 src/attnkit/data/cases/step6_head.yaml 里。
"""
from attnkit.public import case_test

test_attention = case_test("step6_head", "attention")
test_attention_head = case_test("step6_head", "attention_head")
