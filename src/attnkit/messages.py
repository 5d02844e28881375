"""Every instructor-facing message the kit's code words, in English and Chinese, in one table.

`say("report.head", ...)` formats the message with id "report.head" in the current language
(`i18n.language()`: `--lang`, else ATTNKIT_LANG, else the locale) with str.format; each id holds
`{"en": template, "zh": template}` with the same placeholders. The learner's messages are in the
learner runtime's own table (attnkit_runtime/messages.py), which the hand-outs copy; this one stays
in the kit. Data (a mistake's summary, a case's concept) is two-language data of its own.
"""
from attnkit_runtime.i18n import pick

MESSAGES = {
    # --- the class report in the terminal (grader/class_report.py) ---
    "report.head": {
        "en": "class report: {count} submissions, mean {mean:.1f}, median {median:.1f} (of {top:g})",
        "zh": "班级报告：{count} 份提交，平均分 {mean:.1f}，中位数 {median:.1f}（满分 {top:g}）"},
    "report.scores": {"en": "scores:", "zh": "分数分布："},
    "report.steps": {
        "en": "points per step: mean, and students with {spread} of its points:",
        "zh": "每步得分：平均分，以及该步得分为 {spread} 的学生人数："},
    "report.groups": {
        "en": "who lost points, and why (a student may be in several groups):",
        "zh": "谁丢了分，为什么（一名学生可能同时在几组里）："},
    "report.mistakes": {
        "en": "known mistakes, by how many students made them (reteach):",
        "zh": "已知错误，按犯错的学生人数排序（需要重讲）："},
    "report.no_mistake": {"en": "no known mistake was made", "zh": "没有学生犯已知错误"},
    "report.stopped": {
        "en": "errors and timeouts no known mistake explains ({count} students):",
        "zh": "已知错误解释不了的出错和超时（{count} 名学生）："},
    "report.unexplained": {
        "en": "points lost with no known diagnosis ({count} students; the failing tests check):",
        "zh": "无已知诊断的失分（{count} 名学生；未通过的测试检查的是）："},
    "report.more_concepts": {"en": "and {count} more", "zh": "另有 {count} 项"},
    "report.not_written": {
        "en": "steps not written yet ({count} students):", "zh": "还没有写的步骤（{count} 名学生）："},
    "report.tally": {"en": "{count} {status}", "zh": "{count} 个测试{status}"},
    "report.comma": {"en": ", ", "zh": "，"},  # between the parts of one list the report words
    "report.semicolon": {"en": "; ", "zh": "；"},  # between the concepts, and the steps, of one student
    "report.written": {"en": "written: {path}", "zh": "已写入：{path}"},
    # the buckets of a step's points a student got, and the causes of lost points
    "report.spread.none": {"en": "none", "zh": "零分"},
    "report.spread.under_half": {"en": "under half", "zh": "不到一半"},
    "report.spread.half_or_more": {"en": "half or more", "zh": "一半或以上"},
    "report.spread.full": {"en": "full", "zh": "满分"},
    "report.cause.known": {"en": "known mistake", "zh": "已知错误"},
    "report.cause.stopped": {"en": "error or timeout", "zh": "出错或超时"},
    "report.cause.unexplained": {"en": "no known diagnosis", "zh": "无已知诊断"},
    "report.cause.not_written": {"en": "step not written", "zh": "有步骤没写"},
    # --- the class report's HTML page (grader/class_report_html.py) ---
    "report.title": {"en": "attnkit class report", "zh": "attnkit 班级报告"},
    "report.plot.scores": {
        "en": "Scores of {count} submissions (mean {mean:.1f}, median {median:.1f} of {top:g})",
        "zh": "{count} 份提交的分数（平均分 {mean:.1f}，中位数 {median:.1f}，满分 {top:g}）"},
    "report.plot.groups": {
        "en": "Who lost points, and why: students per cause (one may have several)",
        "zh": "谁丢了分，为什么：每种原因的学生人数（一名学生可能有几种）"},
    "report.plot.mistakes": {"en": "Known mistakes: students who made each", "zh": "已知错误：犯每种错误的学生人数"},
    "report.plot.steps": {
        "en": "Points per step: students with none, under half, half or more, or all of its points (of {count})",
        "zh": "每步得分：该步得零分、不到一半、一半或以上、满分的学生人数（共 {count} 人）"},
    "report.plot.step_mean": {"en": "{step} (mean {mean:.3g} / {worth:g})", "zh": "{step}（平均 {mean:.3g} / {worth:g}）"},
    "report.column.students": {"en": "students", "zh": "人数"},
    "report.column.student": {"en": "student", "zh": "学生"},
    "report.column.who": {"en": "who", "zh": "学生"},
    "report.column.mistake": {"en": "mistake", "zh": "错误"},
    "report.column.what": {"en": "what it is", "zh": "是什么错误"},
    "report.column.reteach": {"en": "reteach", "zh": "重讲"},
    "report.column.score": {"en": "score", "zh": "分数"},
    "report.column.stopped": {
        "en": "steps: tests that raised, crashed or ran out of time", "zh": "步骤：出错、崩溃或超时的测试"},
    "report.column.step": {"en": "step", "zh": "步骤"},
    "report.column.concepts": {"en": "what the failing tests check", "zh": "未通过的测试检查的是"},
    "report.column.not_written": {"en": "steps not written yet", "zh": "还没有写的步骤"},
    "report.heading.mistakes": {"en": "Known mistakes to reteach", "zh": "需要重讲的已知错误"},
    "report.heading.stopped": {"en": "Errors and timeouts no known mistake explains", "zh": "已知错误解释不了的出错和超时"},
    "report.heading.unexplained": {"en": "Points lost with no known diagnosis", "zh": "无已知诊断的失分"},
    "report.heading.not_written": {"en": "Steps not written yet", "zh": "还没有写的步骤"},
    "report.empty.mistakes": {"en": "No known mistake was made.", "zh": "没有学生犯已知错误。"},
    "report.empty.stopped": {
        "en": "No error or timeout that a known mistake does not explain.", "zh": "没有已知错误解释不了的出错或超时。"},
    "report.empty.unexplained": {
        "en": "Nobody lost points without a known diagnosis.", "zh": "没有人在无已知诊断的情况下失分。"},
    "report.empty.not_written": {"en": "Every student wrote every step.", "zh": "每名学生都写了每一步。"},
}


def say(key, **fields):
    """The message `key` in the current language, its placeholders filled from `fields`."""
    return pick(MESSAGES[key]).format(**fields)
