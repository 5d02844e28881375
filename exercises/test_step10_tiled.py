"""Public tests of step 10: Tiled attention: the keys in blocks, with an online softmax · 分块 Attention：把 Key 分块处理，用在线 softmax

Run: pytest exercises/test_step10_tiled.py   (all steps: pytest exercises)
The cases are in the kit's catalogue, src/attnkit/data/cases/step10_tiled.yaml.

第 10 步的公开测试。运行：pytest exercises/test_step10_tiled.py（所有步骤：pytest exercises）。
用例在本套工具的用例目录 src/attnkit/data/cases/step10_tiled.yaml 里。
"""
from attnkit.public import case_test

test_online_softmax_update = case_test("step10_tiled", "online_softmax_update")
test_attention_tiled = case_test("step10_tiled", "attention_tiled")
