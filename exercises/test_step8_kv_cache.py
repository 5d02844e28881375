"""Public tests of step 8: Decoding with a KV cache: new tokens read the cached past and themselves · 用 KV Cache 解码：新 Token 读缓存的过去和它自己

Run: pytest exercises/test_step8_kv_cache.py   (all steps: pytest exercises)
The cases are in the kit's catalogue, src/attnkit/data/cases/step8_kv_cache.yaml.

第 8 步的公开测试。运行：pytest exercises/test_step8_kv_cache.py（所有步骤：pytest exercises）。
用例在本套工具的用例目录 src/attnkit/data/cases/step8_kv_cache.yaml 里。
"""
from attnkit.public import case_test

test_append_kv = case_test("step8_kv_cache", "append_kv")
test_chunk_positions = case_test("step8_kv_cache", "chunk_positions")
test_chunk_visible = case_test("step8_kv_cache", "chunk_visible")
test_decode_step = case_test("step8_kv_cache", "decode_step")
test_decode_in_chunks = case_test("step8_kv_cache", "decode_in_chunks")
