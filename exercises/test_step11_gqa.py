"""Public tests of step 11: Grouped-query attention: query heads share key/value heads · 分组查询 Attention：多个 Query Head 共用 Key/Value Head

Run: pytest exercises/test_step11_gqa.py   (all steps: pytest exercises)
The cases are in the kit's catalogue, src/attnkit/data/cases/step11_gqa.yaml.

第 11 步的公开测试。运行：pytest exercises/test_step11_gqa.py（所有步骤：pytest exercises）。
用例在本套工具的用例目录 src/attnkit/data/cases/step11_gqa.yaml 里。
"""
from attnkit.public import case_test

test_kv_head_for = case_test("step11_gqa", "kv_head_for")
test_attention_gqa = case_test("step11_gqa", "attention_gqa")
test_kv_cache_bytes = case_test("step11_gqa", "kv_cache_bytes")
