"""Public tests of step 9: llama.cpp's layout: GGML's ne, flat buffers, padded kq dumps · llama.cpp 的布局：GGML 的 ne、扁平缓冲区、带填充的 kq 导出数据

Run: pytest exercises/test_step9_ggml_layout.py   (all steps: pytest exercises)
The cases are in the kit's catalogue, src/attnkit/data/cases/step9_ggml_layout.yaml.

第 9 步的公开测试。运行：pytest exercises/test_step9_ggml_layout.py（所有步骤：pytest exercises）。
用例在本套工具的用例目录 src/attnkit/data/cases/step9_ggml_layout.yaml 里。
"""
from attnkit.public import case_test

test_from_ggml = case_test("step9_ggml_layout", "from_ggml")
test_to_ggml = case_test("step9_ggml_layout", "to_ggml")
test_read_qkv_dump = case_test("step9_ggml_layout", "read_qkv_dump")
test_read_kq_dump = case_test("step9_ggml_layout", "read_kq_dump")
