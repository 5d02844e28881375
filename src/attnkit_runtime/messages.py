"""Every learner-facing message the kit's code words, in English and Chinese, in one table.

`say("ladder.next", ...)` formats the message with id "ladder.next" in the learner's language
(`i18n.language()`) with str.format; each id holds `{"en": template, "zh": template}` with the same
placeholders. Texts that live in data (a case's concept and hint, a mistake's advice, a step's
title) are not here: they are two-language data of their own, chosen with `i18n.pick`.

Instructor-facing texts are not here: the class report's are in the kit's own table
(attnkit/messages.py); CSV headers, `attnkit verify` and the instructors' CLI errors stay English
(docs/GRADING.md says so).

Part of the portable core that `attnkit release` copies as is (standard library only); the
nbgrader course puts it beside the notebook, whose checks cell imports it.
"""
from .i18n import pick as in_language

MESSAGES = {
    # --- the NotImplementedError of a stub (stubs.py writes both languages into the generated file) ---
    "stub.not_written": {
        "en": "Step {step} ({name}) is not written yet: replace this raise with your code. Read {read}.",
        "zh": "第 {step} 步（{name}）还没有写：把这个 raise 换成你的代码。阅读 {read}。"},
    # --- judging one case (judge.py) ---
    "result.single": {
        "en": "expected a tuple ({names}), got a single {got}",
        "zh": "应返回一个元组 ({names})，实际只返回了一个 {got}"},
    "result.count": {
        "en": "expected a tuple of {count} ({names}), got {got} values",
        "zh": "应返回 {count} 个值的元组 ({names})，实际返回了 {got} 个值"},
    "form.not_array": {
        "en": "{label}: expected a numpy array, got {got}",
        "zh": "{label}：应为 numpy 数组，实际是 {got}"},
    "form.shape": {
        "en": "{label}: expected shape {want}, got {got}",
        "zh": "{label}：形状应为 {want}，实际是 {got}"},
    "form.not_bool": {
        "en": "{label}: expected a boolean table, got dtype {got}",
        "zh": "{label}：应为布尔表，实际 dtype 是 {got}"},
    "form.not_numbers": {
        "en": "{label}: expected numbers, got dtype {got}",
        "zh": "{label}：应为数值，实际 dtype 是 {got}"},
    "form.not_int": {
        "en": "{label}: expected an int, got a {got} (a count or an index is a whole number: use // and int(), "
              "not / or a float)",
        "zh": "{label}：应为整数（int），实际是 {got}（计数或下标是整数：请用 // 和 int()，不要用 / 或浮点数）"},
    "form.dtype": {
        "en": "{label}: expected dtype {want}, got {got} (float32 in must give float32 out: a float64 array or "
              "numpy float64 number met on the way turns the result into float64)",
        "zh": "{label}：dtype 应为 {want}，实际是 {got}（输入 float32，输出也必须是 float32：途中遇到的 float64 "
              "数组或 numpy float64 数都会把结果变成 float64）"},
    "form.dtype_narrowed": {
        "en": "{label}: expected dtype {want}, got {got} ({want} in must give {want} out: something on the way cast "
              "it down to {got}, an .astype({got}), np.{got}(…) or dtype={got}; keep the input's dtype)",
        "zh": "{label}：dtype 应为 {want}，实际是 {got}（输入 {want}，输出也必须是 {want}：途中有一步把它降成了 "
              "{got}，例如 .astype({got})、np.{got}(…) 或 dtype={got}；请保持输入的 dtype）"},
    "compare.expected": {"en": "expected", "zh": "应为"},
    "compare.got": {"en": "got", "zh": "实际"},
    "compare.expected_whole": {"en": "expected (whole)", "zh": "应为（完整）"},
    "compare.got_whole": {"en": "got (whole)", "zh": "实际（完整）"},
    "compare.first_slice": {
        "en": "both have shape {shape}; the first slice that differs, [{index}]:",
        "zh": "两者形状都是 {shape}；第一个有差异的切片 [{index}]："},
    "compare.cells_differ": {
        "en": "{label}: {count} of {size} cells differ (first at {cells})",
        "zh": "{label}：{size} 个格子中有 {count} 个不同（最先在 {cells}）"},
    "compare.nan": {
        "en": "{label}: {counts} values where numbers were expected (first at {where})",
        "zh": "{label}：应为普通数值的地方出现了 {counts}（最先在 {where}）"},
    "compare.nan_count": {"en": "{count} NaN", "zh": "{count} 个 NaN"},
    "compare.inf_count": {"en": "{count} inf", "zh": "{count} 个 inf"},
    "compare.and": {"en": " and ", "zh": " 和 "},
    "compare.values_off": {
        "en": "{label}: {count} of {size} values are off (atol {atol}, rtol {rtol}); largest error {error} "
              "(relative {relative}) at {where}: expected {want}, got {got}",
        "zh": "{label}：{size} 个值中有 {count} 个不对（atol {atol}，rtol {rtol}）；最大误差 {error}"
              "（相对误差 {relative}）在 {where}：应为 {want}，实际是 {got}"},
    "compare.values_off_absolute": {
        "en": "{label}: {count} of {size} values are off (atol {atol}, rtol {rtol}); largest error {error} "
              "at {where}: expected {want}, got {got}",
        "zh": "{label}：{size} 个值中有 {count} 个不对（atol {atol}，rtol {rtol}）；最大误差 {error} "
              "在 {where}：应为 {want}，实际是 {got}"},
    "compare.values_off_infinite": {
        "en": "{label}: {count} of {size} values are off (atol {atol}, rtol {rtol}); at {where}: expected {want}, "
              "got {got}",
        "zh": "{label}：{size} 个值中有 {count} 个不对（atol {atol}，rtol {rtol}）；在 {where}：应为 {want}，"
              "实际是 {got}"},
    "pick.cannot": {
        "en": "{part}: cannot be taken from the result ({name} has shape {shape}: {error})",
        "zh": "{part}：无法从结果中取出（{name} 的形状是 {shape}：{error}）"},
    "pick.missing": {"en": "missing", "zh": "不存在"},
    "part.of_call": {"en": "{part} (call {call})", "zh": "{part}（第 {call} 次调用）"},
    "property.not_finite": {
        "en": "{part} (call {call}): holds NaN or +inf (first at {where}): {values}",
        "zh": "{part}（第 {call} 次调用）：含有 NaN 或 +inf（最先在 {where}）：{values}"},
    "property.dot_products": {
        "en": "{queries} · {keys} (dot products of their rows, call {call})",
        "zh": "{queries} · {keys}（它们各行之间的点积，第 {call} 次调用）"},
    "property.rows_sum": {
        "en": "call {call}: every row of P must sum to 1 (or be all 0 when no key is visible) with no negative "
              "weight; row {row} sums to {total}: {values}",
        "zh": "第 {call} 次调用：P 的每一行加起来必须等于 1（没有可见的 Key 时全为 0），且不能有负权重；"
              "第 {row} 行加起来是 {total}：{values}"},
    "property.peak": {
        "en": "call {call}: {function}() held {peak} of arrays at once; {arrays} float64 arrays of {shape} "
              "({budget}) are all it needs",
        "zh": "第 {call} 次调用：{function}() 同时占用了 {peak} 的数组；它只需要 {arrays} 个 {shape} 的 float64 "
              "数组（{budget}）"},
    "property.peak_resident": {
        "en": "call {call}: {function}() made its process hold {peak} more memory at once (measured by the operating "
              "system); {arrays} float64 arrays of {shape} ({budget}) are all it needs",
        "zh": "第 {call} 次调用：{function}() 让它的进程同时多占用了 {peak} 的内存（由操作系统测得）；它只需要 {arrays} 个 "
              "{shape} 的 float64 数组（{budget}）"},
    "property.out_of_memory": {
        "en": "{function}() ran out of memory, where {arrays} float64 arrays of {shape} ({budget}) are all it needs: "
              "{error}",
        "zh": "{function}() 用完了内存，而它只需要 {arrays} 个 {shape} 的 float64 数组（{budget}）：{error}"},
    "property.peak_hidden": {
        "en": "call {call}: the memory {function}() used could not be measured, because the call stopped or "
              "cleared Python's tracemalloc: leave tracemalloc alone",
        "zh": "第 {call} 次调用：量不出 {function}() 用了多少内存，因为这次调用停止或清空了 Python 的 tracemalloc："
              "不要去动 tracemalloc"},
    "verdict.warning": {
        "en": "{function}() gave the right values but emitted a warning on the way: {warning}{more}\n"
              "  NaN or inf was computed and then hidden; a right answer keeps every intermediate value finite "
              "(no NaN, no warning)",
        "zh": "{function}() 的结果是对的，但中途发出了警告：{warning}{more}\n"
              "  中间算出了 NaN 或 inf，之后又被掩盖了；正确的写法应让每个中间值都保持有限（没有 NaN，也没有警告）"},
    "verdict.modified": {
        "en": "{function}() changed its argument {argument} in place; its result may be right, but the caller "
              "still holds {argument} and reads it after the call. Compute into a new array: `x = x / s` or "
              "`x = x & t`, not `x /= s` or `x &= t`; no `out=` on an input.",
        "zh": "{function}() 原地修改了参数 {argument}；结果也许是对的，但调用者手里还是这个 {argument}，调用之后"
              "还要再读它。请把结果算进一个新数组：写 `x = x / s` 或 `x = x & t`，不要写 `x /= s` 或 `x &= t`；"
              "也不要对输入用 `out=`。"},
    "verdict.warning_more": {"en": " (and {count} more)", "zh": "（另有 {count} 条）"},
    "verdict.not_compared": {
        "en": "the result could not be compared ({error}); got {shapes}",
        "zh": "无法比较这个结果（{error}）；实际得到 {shapes}"},
    "teach.input": {"en": "input", "zh": "输入"},
    "teach.input_of_call": {"en": "input of call {call}", "zh": "第 {call} 次调用的输入"},
    "teach.labelled": {"en": "{label}: {text}", "zh": "{label}：{text}"},
    "teach.input_shape": {"en": "{name}: shape {shape}, {dtype}", "zh": "{name}：形状 {shape}，{dtype}"},
    "teach.whole_arrays": {"en": "(pytest -vv shows the whole arrays)", "zh": "（pytest -vv 会显示完整数组）"},
    "teach.likely_mistake": {"en": "likely mistake: {text}", "zh": "可能的错误：{text}"},
    "teach.alike_mistake": {"en": "{first} Or, alike on this test: {other}", "zh": "{first}或者（在这个测试里结果相同）：{other}"},
    "teach.hint": {"en": "hint: {text}", "zh": "提示：{text}"},
    "teach.read": {"en": "read: {where}", "zh": "阅读：{where}"},
    "teach.public_test": {"en": "in the public test {name}: {concept}", "zh": "公开测试 {name}：{concept}"},
    "teach.inputs": {"en": "inputs: {inputs}", "zh": "输入：{inputs}"},
    "teach.raised": {"en": "raised {error}", "zh": "抛出了 {error}"},
    # --- loading a step and the time limit (loader.py) ---
    "limit.not_number": {
        "en": "{variable} must be a number of seconds, got {got}",
        "zh": "{variable} 必须是秒数，实际是 {got}"},
    "limit.not_positive": {
        "en": "{variable} must be more than 0 seconds, got {got}",
        "zh": "{variable} 必须大于 0 秒，实际是 {got}"},
    "limit.not_run_again": {
        "en": "{what} was not run again: it was stopped after {seconds:g} s on an earlier test (an endless loop?)",
        "zh": "{what} 没有再运行：它在前面的测试中运行了 {seconds:g} 秒后被停止（死循环？）"},
    "limit.stopped": {
        "en": "{what} was stopped after {seconds:g} s: an endless loop? (the time limit is {seconds:g} s; "
              "{variable}=20 gives more)",
        "zh": "{what} 运行 {seconds:g} 秒后被停止：死循环？（时间限制是 {seconds:g} 秒；{variable}=20 可以放宽）"},
    "limit.importing": {"en": "importing {path}", "zh": "导入 {path}"},
    "load.on_line": {"en": " on line {line} ({code})", "zh": "，第 {line} 行（{code}）"},
    "load.missing": {"en": "{path} is missing", "zh": "找不到 {path}"},
    "load.syntax": {
        "en": "{path} has a syntax error on line {line}: {error}{source}",
        "zh": "{path} 第 {line} 行有语法错误：{error}{source}"},
    "load.import_failed": {
        "en": "{path} failed while being imported{where}: {error}",
        "zh": "导入 {path} 时出错{where}：{error}"},
    "load.failure": {"en": "step {step} could not be loaded: {error}", "zh": "第 {step} 步无法加载：{error}"},
    "load.failure_again": {
        "en": "step {step} could not be loaded (see the first failure of this step)",
        "zh": "第 {step} 步无法加载（见这一步的第一个失败）"},
    "load.no_function": {
        "en": "{file} has no function {function}(): keep the name and signature of the stub",
        "zh": "{file} 里没有函数 {function}()：请保留练习文件里原有的函数名和参数"},
    # --- the release: a step run on the learner's own earlier steps (student_runtime.py) ---
    "depends.fix_first": {
        "en": "step {earlier} does not pass its own tests yet; fix it first: step {step} runs on your {file} "
              "(pytest {folder}/test_{file})",
        "zh": "第 {earlier} 步还没有通过它自己的测试，请先改好它：第 {step} 步用的是你的 {file}"
              "（pytest {folder}/test_{file}）"},
    # --- the public tests under pytest (pytest_report.py) ---
    "report.not_written_short": {"en": "not written yet", "zh": "还没有写"},
    "optional.skipped": {
        "en": "step {number} is optional (after the core) and not started, so its tests are skipped. To start it, "
              "write your code in {label}/{file}: its tests then run.",
        "zh": "第 {number} 步是核心部分之后的选做内容，还没有开始，所以跳过它的测试。要开始，就在 {label}/{file} 里写你的代码，"
              "它的测试随后就会运行。"},
    "depends.stopped_there": {"en": "{blame}. It stopped there: {error}", "zh": "{blame}。它停在了这里：{error}"},
    # --- the progress ladder (ladder.py) ---
    "ladder.none_ran": {"en": "attnkit: no public test ran.", "zh": "attnkit：没有运行任何公开测试。"},
    "ladder.header": {"en": "attnkit progress (public tests)", "zh": "attnkit 进度（公开测试）"},
    "ladder.header_reference": {
        "en": "attnkit progress (the reference solutions/, not your exercises/)",
        "zh": "attnkit 进度（参考答案 solutions/，不是你的 exercises/）"},
    "ladder.done": {"en": "done", "zh": "完成"},
    "ladder.not_started": {"en": "not started", "zh": "未开始"},
    "ladder.in_progress": {"en": "in progress", "zh": "进行中"},
    "ladder.next_marker": {"en": "<- next", "zh": "<- 下一步"},
    "ladder.step_row": {
        "en": "step {number:<2} {module:<18} {passed:>2}/{total:<2} {mark}",
        "zh": "第 {number:>2} 步  {module:<18} {passed:>2}/{total:<2} {mark}"},
    "ladder.extension_waits": {
        "en": "After the core, optional, each graded on its own 100 points (shown once the core is done):",
        "zh": "核心部分之后的选做内容，各自单独按 100 分评分（在核心部分完成后才显示）："},
    "ladder.optional_track": {"en": "steps {first}–{last}: {title}", "zh": "第 {first}–{last} 步：{title}"},
    "ladder.track_heading": {"en": "{title} (optional, graded on its own 100 points)",
                             "zh": "{title}（选做，单独按 100 分评分）"},
    "ladder.optional_not_started": {"en": "optional, not started (skipped)", "zh": "选做，未开始（已跳过）"},
    "ladder.optional": {
        "en": "The steps after the core are optional: a step you have not started is skipped, so the "
              "run is green without it. To start, write your code in {label}/{file}.",
        "zh": "核心部分之后的步骤是选做的：还没开始的步骤会被跳过，不做也是全绿。"
              "要开始，就在 {label}/{file} 里写你的代码。"},
    "ladder.first_run": {
        "en": "Every test that ran failed with NotImplementedError: no function is written yet, so these failures "
              "are expected. Start with step {step}, as below.",
        "zh": "运行的测试都因 NotImplementedError 失败：还没有写任何函数，所以这些失败是正常的。"
              "从第 {step} 步开始，见下面。"},
    "ladder.next": {
        "en": "Next: {label}/{file} — {title}.\n"
              "      First failure: {failure}\n"
              "      Read {read}, then run: pytest {label}/test_{file}",
        "zh": "下一步：{label}/{file} — {title}。\n"
              "      第一个失败：{failure}\n"
              "      先读 {read}，然后运行：pytest {label}/test_{file}"},
    "ladder.all_pass_reference": {
        "en": "All {passed} public tests of {scope} pass on the reference solutions/. Your own code is tested "
              "by `pytest exercises` (without --solutions). The graded run adds hidden tests, which also check:",
        "zh": "{scope}的全部 {passed} 个公开测试在参考答案 solutions/ 上通过。你自己的代码用 "
              "`pytest exercises`（不加 --solutions）来测。评分时还会加上隐藏测试，它们还检查："},
    "ladder.all_pass": {
        "en": "All {passed} public tests of {scope} pass. That is not full marks yet: the graded run adds "
              "hidden tests, which also check:",
        "zh": "{scope}的全部 {passed} 个公开测试都通过了。这还不等于满分：评分时还会加上隐藏测试，它们还检查："},
    "ladder.of_steps": {"en": "{steps} steps", "zh": "{steps} 个步骤"},
    "ladder.of_step": {"en": "step {number}", "zh": "第 {number} 步"},
    "ladder.hidden_step": {"en": "step {number}: {concepts}.", "zh": "第 {number} 步：{concepts}。"},
    "ladder.concept_separator": {"en": "; ", "zh": "；"},
    "list.separator": {"en": ", ", "zh": "、"},
    "ladder.solutions_banner": {
        "en": "attnkit: testing the kit's reference {label}/ (--solutions), not your own code",
        "zh": "attnkit：正在测试本套练习的参考答案 {label}/（--solutions），不是你自己的代码"},
    # --- the learner's function called from a command line (show_call.py, show_mine.py) ---
    "show.not_number": {
        "en": "cannot read {text} as a number or True/False",
        "zh": "无法把 {text} 读成数字或 True/False"},
    "show.not_dtype": {
        "en": "dtype: {text} is not a numpy dtype (e.g. float32)",
        "zh": "dtype：{text} 不是 numpy 的 dtype（例如 float32）"},
    "show.ragged": {
        "en": "{name}: every row of {text} needs the same number of cells",
        "zh": "{name}：{text} 的每一行必须有相同数量的格子"},
    "show.arguments": {
        "en": "{function} takes {names} ({required} required), got {count} argument(s)",
        "zh": "{function} 的参数是 {names}（其中 {required} 个必填），实际给了 {count} 个"},
    "show.not_written": {"en": "not written yet: {error}", "zh": "还没有写：{error}"},
    "show.interrupted": {
        "en": "stopped (Ctrl-C) while your code ran: an endless loop?",
        "zh": "你的代码运行时被停止（Ctrl-C）：死循环？"},
    "show.raised": {"en": "your code raised {error}", "zh": "你的代码抛出了 {error}"},
    "show.at_line": {"en": "  {file}, line {line}: {code}", "zh": "  {file}，第 {line} 行：{code}"},
    "show.returned_else": {
        "en": "your {call} returned something else: {error}",
        "zh": "你的 {call} 返回的不是应有的结果：{error}"},
    "show.returned_type": {
        "en": "your {call} returned a {got} for {name}; expected a numpy array",
        "zh": "你的 {call} 为 {name} 返回了 {got}；应为 numpy 数组"},
    "show.yours": {"en": "yours: {name}", "zh": "你的：{name}"},
    "show.expected": {"en": "expected: {name}", "zh": "应为：{name}"},
    "show.corner_query_key": {"en": "query ↓ / key →", "zh": "Query ↓ / Key →"},
    "show.corner_row_column": {"en": "row ↓ / column →", "zh": "行 ↓ / 列 →"},
    "show.corner_token_feature": {"en": "token ↓ / feature →", "zh": "Token ↓ / 特征 →"},
    "show.corner_query_kv_head": {"en": "query head ↓ / KV head →", "zh": "Query Head ↓ / KV Head →"},
    "show.nothing_stored_for": {
        "en": "(no expected result of {function} is stored; calls that have one: {examples})",
        "zh": "（没有存下 {function} 的应有结果；存了应有结果的调用有：{examples}）"},
    "show.no_stored_expected": {
        "en": "(no expected result is stored for these arguments; it is for: {examples})",
        "zh": "（这些参数没有存下应有的结果；存了的有：{examples}）"},
    "show.lang": {"en": "--lang takes one of: {choices}", "zh": "--lang 只能是其中之一：{choices}"},
    "show.usage_tool": {
        "en": "give a preset ({presets}), or [--mine] FUNCTION ARG…, e.g. attnkit-show --mine causal_visible 2 5 "
              "(run it in the folder that holds exercises/); FUNCTION is one of: {names}",
        "zh": "请给出一个预设（{presets}），或 [--mine] FUNCTION ARG…，例如 attnkit-show --mine causal_visible 2 5"
              "（在包含 exercises/ 的文件夹里运行）；FUNCTION 可选：{names}"},
    "show.shape_differs": {
        "en": "{name}: shape differs: expected {want}, got {got}",
        "zh": "{name}：形状不同：应为 {want}，实际是 {got}"},
    "show.cells_differ": {
        "en": "{name}: {count} of {size} cells differ (marked {mark})",
        "zh": "{name}：{size} 个格子中有 {count} 个不同（标记为 {mark}）"},
    "show.matches": {"en": "{name}: matches the expected one", "zh": "{name}：与应有的结果一致"},
    "show.dtype_differs": {
        "en": "{name}: dtype differs: expected {want}, got {got}",
        "zh": "{name}：dtype 不同：应为 {want}，实际是 {got}"},
    "show.no_such_function": {
        "en": "no function {function} in the exercises; one of: {names}",
        "zh": "练习里没有函数 {function}；可选的有：{names}"},
    "show.frame_needed": {
        "en": "give a preset, or --tq/--tk (positive sizes) or --tokens",
        "zh": "请给出一个预设，或者 --tq/--tk（正整数）或 --tokens"},
    "show.too_many_queries": {
        "en": "--tq ({queries}) must be at most --tk ({keys}): each new query needs its own key",
        "zh": "--tq（{queries}）不能大于 --tk（{keys}）：每个新的 Query 都需要它自己的 Key"},
    "show.token_count": {
        "en": "--tokens names {count} positions; T_k is {keys}: give one token per key",
        "zh": "--tokens 给了 {count} 个位置，而 T_k 是 {keys}：每个 Key 给一个 token"},
    "show.pad_values": {
        "en": "--pad must be {keys} values of 1 (real token) or 0 (padding), got {got}",
        "zh": "--pad 必须是 {keys} 个 1（真实 token）或 0（padding），实际是 {got}"},
    "show.mine_alone": {"en": "--mine takes FUNCTION ARG… and no frame options",
                        "zh": "--mine 只接 FUNCTION ARG…，不能再加表格的选项"},
    "show.mine_needs_function": {"en": "--mine needs a FUNCTION, e.g. --mine causal_visible 2 5",
                                 "zh": "--mine 需要一个 FUNCTION，例如 --mine causal_visible 2 5"},
    "show.options_first": {
        "en": "--mine takes everything after it as FUNCTION ARG…: put {option} before --mine",
        "zh": "--mine 会把它后面的一切当作 FUNCTION ARG…：请把 {option} 放在 --mine 前面"},
    "show.preset_or_frame": {"en": "give a preset or --tq/--tk/--pad/--tokens, not both",
                             "zh": "预设和 --tq/--tk/--pad/--tokens 只能选一种"},
    "check.no_step": {
        "en": "attnkit check: no step {step}; give a number 1–{last} or a module name",
        "zh": "attnkit check：没有第 {step} 步；请给出 1–{last} 的数字或模块名"},
    "show.visible_title": {"en": "visible (True = may read)", "zh": "visible（True = 可以读）"},
    "show.groups_head": {"en": "n_head = {n_head}, n_kv_head = {n_kv_head}: query head h reads KV head h // {group}",
                         "zh": "n_head = {n_head}，n_kv_head = {n_kv_head}：第 h 个 Query Head 读第 h // {group} 个 KV Head"},
    "show.reads_title": {"en": "reads (True = the query head reads this KV head's K and V)",
                         "zh": "reads（True = 这个 Query Head 读这个 KV Head 的 K 和 V）"},
    "show.equal_scores": {
        "en": ", all scores equal: each row shares its weight evenly over its visible keys",
        "zh": "，所有分数相等：每一行把权重平均分给它可见的 Key"},
    "show.source": {"en": "(read: {links})", "zh": "（阅读：{links}）"},
    "show.source_note": {"en": "(read: {links}: {note})", "zh": "（阅读：{links}：{note}）"},
    "show.position": {"en": "{index} (pos {position})", "zh": "{index}（位置 {position}）"},
    "show.tiled_scores": {"en": "S = Q Kᵀ / sqrt(D_h), -inf where hidden (causal)",
                          "zh": "S = Q Kᵀ / sqrt(D_h)，被遮住的是 -inf（因果）"},
    "show.tiled_maximum": {"en": "m after each block: the running maximum of each row",
                           "zh": "每块之后的 m：每一行当前的最大值"},
    "show.corner_query_block": {"en": "query ↓ / block →", "zh": "Query ↓ / 块 →"},
    "show.block_keys": {"en": "keys {first}–{last}", "zh": "Key {first}–{last}"},
    "show.block_key": {"en": "key {first}", "zh": "Key {first}"},
    "show.no_reference": {
        "en": "{folder} is not in this copy of the kit: the expected tables cannot be computed here "
              "(compare with the lesson's tables)",
        "zh": "这份练习里没有 {folder}：无法在这里算出应有的表（请对照课程里的表）"},
    # --- the grader's feedback to a student (grader/grade.py, feedback.py, report_gradescope.py) ---
    "grade.not_graded": {"en": "not graded: {problem}", "zh": "未评分：{problem}"},
    "grade.no_result": {"en": "the grader got no result for this call", "zh": "评分程序没有收到这次调用的结果"},
    "grade.timeout": {
        "en": "stopped: {error} (an endless loop, or far more work than the inputs need?)",
        "zh": "被停止：{error}（死循环，或者做了远超输入所需的计算？）"},
    "grade.timeout_asleep": {
        "en": "stopped: {error} (time.sleep, or waiting for something that never comes?)",
        "zh": "被停止：{error}（调用了 time.sleep，或者在等待永远不会到来的东西？）"},
    "grade.crashed": {
        "en": "the process running your code died before returning (sys.exit/os._exit, a crash, or too much "
              "memory): {error}",
        "zh": "运行你代码的进程在返回之前就终止了（sys.exit/os._exit、崩溃，或内存用得太多）：{error}"},
    "grade.notebook_cell": {"en": '{notebook}, the cell under "{heading}"', "zh": "{notebook} 中“{heading}”下面的单元格"},
    "grade.notebook_code_cell": {"en": "{notebook}, code cell {number}", "zh": "{notebook} 的第 {number} 个代码单元格"},
    "grade.load_error": {"en": "your file could not be loaded: {error}", "zh": "你的文件无法加载：{error}"},
    "grade.garbled": {"en": "the grader could not read what your code sent back: {error}",
                      "zh": "评分程序无法读取你的代码返回的内容：{error}"},
    "grade.not_written_mark": {"en": "not written yet", "zh": "还没有写"},
    "grade.not_written": {
        "en": "step {step} ({name}) is {mark}: {what}.",
        "zh": "第 {step} 步（{name}）{mark}：{what}。"},
    "grade.file_missing": {"en": "{file} is missing", "zh": "缺少 {file}"},
    "grade.replace_raise": {
        "en": "replace the `raise NotImplementedError` with your code",
        "zh": "把 `raise NotImplementedError` 换成你的代码"},
    "grade.points_split": {
        "en": "Each step is graded on its own: its tests run with the reference versions of the earlier steps it "
              "imports, so a mistake costs points only in the step that made it. A step's points are shared by "
              "its tests (public and hidden) in proportion to their weights. A function's public tests and its "
              "property tests pay only once it also passes a hidden test that checks values: inputs you have not "
              "seen show that it computes.",
        "zh": "每一步单独评分：它的测试使用它所导入的前面各步的参考版本，所以一个错误只在犯错的那一步扣分。"
              "一步的分数按权重分给它的各个测试（公开的和隐藏的）。一个函数的公开测试和性质测试，"
              "只有在它也通过一个检查数值的隐藏测试时才得分：你没见过的输入才能说明它真的在计算。"},
    "grade.unpaid": {
        "en": "passed, but scores 0: its points need {function}() to pass a hidden test that checks values too",
        "zh": "通过了，但得 0 分：要得到它的分数，{function}() 还需要通过一个检查数值的隐藏测试"},
    "intake.found_in": {"en": "step files found in {where}/", "zh": "在 {where}/ 里找到了各步的文件"},
    "intake.no_step_files": {
        "en": "{name} holds no step file (step1_projection.py …), neither at its top nor in a folder up to {depth} "
              "levels down; its top holds: {found}",
        "zh": "{name} 里没有任何一步的文件（step1_projection.py …），顶层和往下 {depth} 层的文件夹里都没有；"
              "它的顶层有：{found}"},
    "intake.empty": {"en": "nothing", "zh": "没有任何文件"},
    "intake.many_step_folders": {
        "en": "{name} has step files in {count} folders ({folders}): hand in one of them",
        "zh": "{name} 有 {count} 个文件夹里都有各步的文件（{folders}）：请只提交其中一个"},
    "status.passed": {"en": "passed", "zh": "通过"},
    "status.failed": {"en": "failed", "zh": "未通过"},
    "status.error": {"en": "error", "zh": "出错"},
    "status.timeout": {"en": "timeout", "zh": "超时"},
    "feedback.hidden_test": {"en": "hidden test", "zh": "隐藏测试"},
    "feedback.hidden_title": {"en": "{title} (a hidden test: {status})", "zh": "{title}（隐藏测试：{status}）"},
    "feedback.step_not_written": {"en": "step {step} is {mark}.", "zh": "第 {step} 步{mark}。"},
    "feedback.title": {"en": "Feedback for {who}: {score} / {max}", "zh": "{who} 的反馈：{score} / {max}"},
    "feedback.column_step": {"en": "step", "zh": "步骤"},
    "feedback.step_name": {"en": "Step {number}: {title}", "zh": "第 {number} 步：{title}"},
    "feedback.column_points": {"en": "points", "zh": "得分"},
    "feedback.column_failed": {"en": "tests not passed", "zh": "未通过的测试"},
    "feedback.failure": {"en": "{name}: {status}", "zh": "{name}：{status}"},
    "feedback.step_unwritten": {
        "en": "Step {step} is not written yet ({tests} tests): replace each `raise NotImplementedError` with your code.",
        "zh": "第 {step} 步还没有写（{tests} 个测试）：把每个 `raise NotImplementedError` 换成你的代码。"},
    "feedback.functions_unwritten": {"en": "Not written yet: {functions}.", "zh": "还没有写：{functions}。"},
    "feedback.function_tests": {"en": "{function}() ({tests} tests)", "zh": "{function}()（{tests} 个测试）"},
    "feedback.times": {"en": "({count} tests)", "zh": "（{count} 个测试）"},
    "feedback.grid_caption": {
        "en": "{part}, of shape {shape}: the cells outlined in red differ from the expected ones.",
        "zh": "{part}，形状 {shape}：红框标出的格子与应有的值不同。"},
    "feedback.heat_caption": {"en": "Weights are shaded: the darker, the closer to 1.",
                              "zh": "权重按深浅着色：颜色越深，越接近 1。"},
    "feedback.grids_public_only": {
        "en": "Expected and got are drawn as tables for public tests only: a hidden test's expected values would "
              "give its answers away.",
        "zh": "只为公开测试用表格画出应有值和实际值：隐藏测试的应有值会泄露它的答案。"},
    "gradescope.not_graded": {"en": "Your submission could not be graded: {reason}.",
                              "zh": "你的提交无法评分：{reason}。"},
    "gradescope.many_notebooks": {
        "en": "found {count} notebooks ({names}); submit exactly one .ipynb, or the step files (step1_projection.py …)",
        "zh": "找到了 {count} 个 notebook（{names}）；请只提交一个 .ipynb，或者提交各步的文件（step1_projection.py …）"},
    "gradescope.public_passed": {"en": "Public tests: {passed} of {total} passed. {split}",
                                 "zh": "公开测试：{total} 个中通过了 {passed} 个。{split}"},
    "gradescope.public_step": {"en": "{passed} of {total} public tests passed", "zh": "公开测试 {total} 个中通过了 {passed} 个"},
    "gradescope.mistakes": {"en": "Likely mistakes: {codes}", "zh": "可能的错误：{codes}"},
    "gradescope.after_publication": {
        "en": "Your score, the hidden tests and what your code printed (it ran on the hidden tests too) are shown "
              "once your instructor publishes the grades.",
        "zh": "你的得分、隐藏测试以及你的代码打印的内容（它也在隐藏测试上运行过）会在老师发布成绩后显示。"},
    "gradescope.withheld": {"en": "{step}: points of passed public tests, withheld (see why)",
                            "zh": "{step}：已通过的公开测试的分数，未计入（原因见下）"},
    "gradescope.printed": {"en": "What your code printed", "zh": "你的代码打印的内容"},
    "gradescope.stderr": {"en": "What your code wrote to stderr", "zh": "你的代码写到 stderr 的内容"},
    # --- the sandbox: calls not run (grader/sandbox_runner.py) ---
    "sandbox.budget_bytes": {
        "en": "not run (budget spent): this submission's results reached its budget of {limit} bytes (arrays far "
              "larger than the inputs need?); its remaining tests score 0",
        "zh": "没有运行（预算已用完）：这份提交的结果已达到 {limit} 字节的上限（数组比输入所需的大得多？）；"
              "其余测试记 0 分"},
    "sandbox.budget_time": {
        "en": "not run (budget spent): this submission used up its time budget of {seconds:g} s (imports or calls "
              "that sleep or loop?); its remaining tests score 0",
        "zh": "没有运行（预算已用完）：这份提交用完了 {seconds:g} 秒的时间预算（导入或调用时在 sleep 或死循环？）；"
              "其余测试记 0 分"},
    "sandbox.budget_cpu": {
        "en": "not run (budget spent): this submission used up its budget of {seconds:g} s of CPU time (calls that "
              "loop, or far more work than the inputs need?); its remaining tests score 0",
        "zh": "没有运行（预算已用完）：这份提交用完了 {seconds:g} 秒的 CPU 时间预算（调用里有死循环，或者做了远超输入所需的计算？）；"
              "其余测试记 0 分"},
    "sandbox.budget_idle": {
        "en": "not run (budget spent): this submission's code slept for {seconds:g} s in all (calls that sleep or "
              "wait?); its remaining tests score 0",
        "zh": "没有运行（预算已用完）：这份提交的代码一共休眠了 {seconds:g} 秒（调用里在 sleep 或等待？）；其余测试记 0 分"},
    "sandbox.over_cpu": {"en": "{what} used more than {seconds:g} s of CPU time",
                         "zh": "{what} 用了超过 {seconds:g} 秒的 CPU 时间"},
    "sandbox.over_idle": {"en": "{what} slept (waited without computing) for more than {seconds:g} s",
                          "zh": "{what} 休眠（不做计算地等待）超过了 {seconds:g} 秒"},
    "sandbox.over_wall": {"en": "{what} did not finish within {seconds:g} s",
                          "zh": "{what} 没有在 {seconds:g} 秒内结束"},
    "sandbox.the_import": {"en": "{file} (while being imported)", "zh": "{file}（导入时）"},
    "sandbox.not_run_after_timeouts": {
        "en": "not run ({function}() already ran out of time {count} times): make the calls that timed out finish first",
        "zh": "没有运行（{function}() 已经超时 {count} 次）：请先让超时的调用能按时结束"},
    "sandbox.not_run_after_crashes": {
        "en": "not run ({function}() already ended its process {count} times): make those calls return first "
              "(no exit or os._exit, no allocation far past what the inputs need)",
        "zh": "没有运行（{function}() 已经 {count} 次让它的进程结束）：请先让这些调用正常返回"
              "（不要调用 exit 或 os._exit，也不要申请远超输入所需的内存）"},
    "sandbox.peak_unmeasured": {
        "en": "not judged: the grader cannot limit or measure the memory {function}() holds from outside its "
              "process here, and does not judge it on what that process says",
        "zh": "没有评判：这里评分程序无法在进程之外限制或测量 {function}() 占用的内存，也不会凭该进程自己报告的数字来评判"},
    "sandbox.not_run_after_restarts": {
        "en": "not run: this submission's process was ended {count} times (calls that crash it or allocate past "
              "its memory); its remaining tests score 0",
        "zh": "没有运行：这份提交的进程已经被结束了 {count} 次（调用让进程崩溃，或分配的内存超过上限）；其余测试记 0 分"},
    # --- the sandbox: earlier steps' functions, answered by the grader (grader/sandbox_reference.py) ---
    "sandbox.ref_not_allowed": {
        "en": "{function}() cannot be used while {step} is graded: a step may call only the functions of the "
              "earlier steps it imports",
        "zh": "评分 {step} 时不能调用 {function}()：一个步骤只能调用它导入的前面步骤的函数"},
    "sandbox.ref_argument": {
        "en": "{function}() cannot be given {kind}: pass numpy arrays of numbers or bools, numbers, None, "
              "or lists and tuples of them",
        "zh": "{function}() 不能接收 {kind}：请传入数值或布尔 numpy 数组、数字、None，或由它们组成的列表和元组"},
    "sandbox.ref_failed": {
        "en": "{function}() could not be computed for these arguments (they need more memory than a call may use)",
        "zh": "用这些参数无法计算 {function}()（所需内存超过一次调用可用的上限）"},
    "sandbox.ref_too_large": {
        "en": "{function}() would give more than {limit} bytes of arrays for these arguments (far larger than "
              "the inputs need?)",
        "zh": "用这些参数，{function}() 的结果会超过 {limit} 字节（比输入所需的大得多？）"},
    # --- the nbgrader notebook's test cells and progress cell (nbgrader_course/feedback.py) ---
    "notebook.summary": {"en": "{module}: {public_ok} of {public_run} public checks passed",
                "zh": "{module}：公开检查通过 {public_ok} / {public_run}"},
    "notebook.summary_hidden": {"en": ", {hidden_ok} of {hidden_run} hidden checks passed",
                       "zh": "，隐藏检查通过 {hidden_ok} / {hidden_run}"},
    "notebook.hidden_also": {"en": "At grading, hidden checks also cover: {concepts}.",
                    "zh": "评分时运行的隐藏检查还会考查：{concepts}。"},
    "notebook.not_written": {"en": "not written yet: {text}", "zh": "还没有写：{text}"},
    "notebook.failed_check": {"en": "FAILED ({visibility} check): {text}", "zh": "未通过（{visibility}检查）：{text}"},
    "notebook.public": {"en": "public", "zh": "公开"},
    "notebook.hidden": {"en": "hidden", "zh": "隐藏"},
    "notebook.more": {"en": "{count} more failed check(s), not shown in full: {concepts}",
             "zh": "另有 {count} 项检查未通过，未逐条展开：{concepts}"},
    "notebook.earned": {"en": "This cell earns {earned:g} of its {points:g} points (each check earns its share).",
                        "zh": "这个单元格得到 {earned:g} / {points:g} 分（每项检查各得它那一份）。"},
    "notebook.not_defined": {
        "en": "{function}() is not defined: run this step's solution cell first, and keep the function's name and signature",
        "zh": "{function}() 还没有定义：先运行这一步的代码单元格，并保留函数的名字和参数"},
    "notebook.step_label": {"en": "step {number}", "zh": "第 {number} 步"},
    "notebook.cell_of": {"en": "the cell of step {number} ({module})", "zh": "第 {number} 步（{module}）的单元格"},
    "notebook.one_namespace": {
        "en": "note: `import {module}` is not needed here: the notebook's cells share one namespace, so a function "
              "defined in an earlier cell (once that cell has run) is already there. The import gives those same names.",
        "zh": "提示：这里不需要 `import {module}`：notebook 的所有单元格共用一个命名空间，前面单元格定义的函数"
              "（只要那个单元格运行过）已经可以直接使用。这个导入得到的就是这些名字。"},
    "notebook.not_in_namespace": {
        "en": "{name} is not defined in this notebook yet (`from {module} import {name}`): run the cell that defines it "
              "first; the notebook's cells share one namespace, so the import is not needed",
        "zh": "这个 notebook 里还没有定义 {name}（`from {module} import {name}`）：先运行定义它的单元格；"
              "notebook 的所有单元格共用一个命名空间，不需要这个导入"},
    "notebook.language": {
        "en": "**Language.** The checks print English or Chinese: `ATTNKIT_LANG` (`en` or `zh`) if set, else your "
              "locale (`LC_ALL`, `LC_MESSAGES`, `LANG`: `zh_CN.UTF-8` means Chinese), read at each check. To switch "
              "in this notebook, run `import os; os.environ[\"ATTNKIT_LANG\"] = \"zh\"` (or `\"en\"`) in a cell, then "
              "the test cells again.",
        "zh": "**语言。** 检查的输出是英文或中文：设置了 `ATTNKIT_LANG`（`en` 或 `zh`）就按它，否则按你的区域设置"
              "（`LC_ALL`、`LC_MESSAGES`、`LANG`：`zh_CN.UTF-8` 即中文），每次检查时读取。要在这个 notebook 里切换，"
              "在一个单元格里运行 `import os; os.environ[\"ATTNKIT_LANG\"] = \"zh\"`（或 `\"en\"`），再重新运行测试单元格。"},
    "notebook.points_rule": {
        "en": "**Points.** Each step's test cell is worth that step's points, shared among its checks: the cell shows "
              "the points it earns, and nbgrader gives it exactly those, by the same rule as the course's own grader. The test cells you "
              "see run the public checks; at grading, hidden checks (other shapes, float32, batches of heads, …) run "
              "in the same cells, and a public check's share counts once the function also passes a hidden check "
              "on its values. So the points you see here are the public checks' only: the grade is given at grading. "
              "A check that fails only because an earlier step it calls is wrong costs this step nothing (that "
              "step's cell counts it). Do not delete or edit the test cells or the provided cells: they are "
              "restored from the instructor's copy when your notebook is graded.",
        "zh": "**分数。** 每一步的测试单元格值这一步的分数，由它的各项检查分摊：单元格会显示它得到的分数，"
              "nbgrader 给的正是这个分数，规则与课程自己的评分程序相同。你看到的测试单元格运行公开检查；评分时，同样的"
              "单元格还会运行隐藏检查（其他形状、float32、多头批量……），而一项公开检查的那一份，只有在函数也通过"
              "一项检查数值的隐藏检查后才计分。所以这里看到的分数只是公开检查的：成绩在评分时给出。"
              "如果一项检查只是因为它调用的前面某一步有错而未通过，这一步不扣分（由那一步的单元格计）。"
              "不要删除或修改测试单元格和提供的单元格：评分时会用教师的版本恢复它们。"},
    "notebook.provided_code": {"en": "provided code, the same in every notebook (not shown here)",
                               "zh": "提供的代码，每份 notebook 都相同（此处不显示）"},
    "notebook.earlier": {"en": "This step calls your functions of earlier steps that do not pass their own tests yet: {steps}. "
                      "Fix step {first} first (its test cell says what is wrong), then run this cell again.",
                "zh": "这一步会调用你在前面几步写的函数，而这些步骤还没有通过它们自己的测试：{steps}。"
                      "先改好第 {first} 步（它的测试单元格会说明哪里不对），再重新运行这个单元格。"},
    "notebook.step_name": {"en": "step {number} ({module})", "zh": "第 {number} 步（{module}）"},
    "notebook.raised": {"en": "raised {name}: {text}", "zh": "抛出了 {name}：{text}"},
    "notebook.your_line": {"en": "in your code:", "zh": "出错的是你的代码："},
    "notebook.progress": {"en": "attnkit progress ({whose})", "zh": "attnkit 进度（{whose}）"},
    "notebook.whose_public": {"en": "public checks; hidden checks run at grading", "zh": "公开检查；隐藏检查在评分时运行"},
    "notebook.whose_all": {"en": "public and hidden checks", "zh": "公开检查与隐藏检查"},
    "notebook.passed": {"en": "passed", "zh": "通过"},
    "notebook.failed": {"en": "failed", "zh": "未通过"},
    "notebook.not_started": {"en": "not written yet", "zh": "还没有写"},
    "notebook.not_run": {"en": "test cell not run yet", "zh": "测试单元格还没有运行"},
    "notebook.next": {"en": "   <- next", "zh": "   <- 下一步"},
    "notebook.points_row": {"en": "{earned:>5g} / {points:<3g} points", "zh": "{earned:>5g} / {points:<3g} 分"},
    "notebook.total": {"en": "Points: {earned:g} of {total:g}.", "zh": "得分：{earned:g} / {total:g}。"},
    "notebook.total_public": {
        "en": "Points on the public checks: {earned:g} of {total:g}. The grade is given at grading, where the same "
              "cells also run hidden checks.",
        "zh": "公开检查的得分：{earned:g} / {total:g}。成绩在评分时给出，那时这些单元格还会运行隐藏检查。"},
    "notebook.read_next": {"en": "Next: step {number}. Read {read} (beside this notebook).",
                  "zh": "下一步：第 {number} 步。请读 {read}（在这个 notebook 旁边）。"},
    # --- the nbgrader course's kernel, started by `nbgrader autograde` (nbgrader_course/barrier.py, runtime.py) ---
    "nbgrader_barrier.no_bwrap": {
        "en": "attnkit: the notebook's kernel did not start: bwrap is not on PATH, and without it a notebook could "
              "change the hidden tests, the course files and other students' submissions. Install bubblewrap "
              "(Debian/Ubuntu: apt-get install bubblewrap), or grade without the sandbox as docs/NBGRADER.md says.",
        "zh": "attnkit：notebook 的内核没有启动：PATH 中找不到 bwrap，没有它，一份 notebook 就能改动隐藏测试、课程文件和"
              "其他学生的提交。请安装 bubblewrap（Debian/Ubuntu：apt-get install bubblewrap），或按 docs/NBGRADER.md "
              "所述不用沙箱评分。"},
    "nbgrader_barrier.failed": {
        "en": "attnkit: the notebook's kernel did not start: bwrap cannot build its sandbox ({said}). Allow user "
              "namespaces (sysctl user.max_user_namespaces, kernel.apparmor_restrict_unprivileged_userns=0) or run "
              "nbgrader as root with CAP_SYS_ADMIN, or grade without the sandbox as docs/NBGRADER.md says.",
        "zh": "attnkit：notebook 的内核没有启动：bwrap 无法建立沙箱（{said}）。请允许用户命名空间（sysctl "
              "user.max_user_namespaces、kernel.apparmor_restrict_unprivileged_userns=0），或以带 CAP_SYS_ADMIN 的 "
              "root 运行 nbgrader，或按 docs/NBGRADER.md 所述不用沙箱评分。"},
    "nbgrader_barrier.course_folder": {
        "en": "attnkit: the notebook's kernel did not start: its folder {folder} holds the course itself, which the "
              "notebook could then change. Run notebooks in their assignment folders, as nbgrader does.",
        "zh": "attnkit：notebook 的内核没有启动：它的文件夹 {folder} 包含整个课程，notebook 就能改动课程。"
              "请像 nbgrader 那样在作业文件夹中运行 notebook。"},
    "nbgrader_barrier.hidden_changed": {
        "en": "attnkit: not grading: the hidden tests {path} were changed after the course was built (SHA-256 "
              "{found}…, the course's is {digest}…). Put back the file `attnkit nbgrader-course` wrote, then "
              "autograde again.",
        "zh": "attnkit：不评分：隐藏测试 {path} 在课程生成之后被改动过（SHA-256 为 {found}…，课程的是 {digest}…）。"
              "请恢复 `attnkit nbgrader-course` 写出的文件，再重新 autograde。"},
    "nbgrader_barrier.runtime_missing": {
        "en": "attnkit: not grading: the checks' folder {path} is missing, and without it a notebook would be graded "
              "by whatever copy its submission brought. Run `attnkit nbgrader-course DIR --force`, then autograde again.",
        "zh": "attnkit：不评分：检查代码的文件夹 {path} 不见了；没有它，notebook 会用提交里自带的副本评分。"
              "请运行 `attnkit nbgrader-course DIR --force`，再重新 autograde。"},
    "nbgrader_barrier.hidden_missing": {
        "en": "attnkit: not grading: the hidden tests {path} are missing. Put back the file `attnkit nbgrader-course` "
              "wrote, then autograde again.",
        "zh": "attnkit：不评分：隐藏测试 {path} 不见了。请恢复 `attnkit nbgrader-course` 写出的文件，再重新 autograde。"},
    "notebook.hidden_changed": {
        "en": "the hidden tests cannot run: {path} was changed after the course was built (its SHA-256 is not "
              "{digest}…). Put back the file `attnkit nbgrader-course` wrote, then grade again.",
        "zh": "隐藏测试无法运行：{path} 在课程生成之后被改动过（它的 SHA-256 不是 {digest}…）。"
              "请恢复 `attnkit nbgrader-course` 写出的文件，再重新评分。"},
    "notebook.hidden_missing": {
        "en": "the hidden tests ({path} with SHA-256 {digest}…) were not found above {here}: run nbgrader in the "
              "course folder that `attnkit nbgrader-course` wrote, and regenerate the course if you changed that file",
        "zh": "在 {here} 及其上级文件夹中找不到隐藏测试（{path}，SHA-256 {digest}…）：请在 `attnkit nbgrader-course` "
              "写出的课程文件夹中运行 nbgrader；如果改动过那个文件，请重新生成课程"},
    "notebook.all_passed": {"en": "Every step passes its public checks.",
                            "zh": "每一步都通过了公开检查。"},
}


def say(key, **fields):
    """The message `key` in the learner's language, its placeholders filled from `fields`."""
    return in_language(MESSAGES[key]).format(**fields)
