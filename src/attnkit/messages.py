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
    # --- attnkit grade's terminal lines (cmd_grade.py, grader/report_text.py, grader/batch.py) ---
    "grade.roster_refused": {"en": "--roster: {error}", "zh": "--roster：{error}"},
    "grade.nothing_graded": {"en": "nothing was graded: {error}", "zh": "什么都没有评分：{error}"},
    "grade.no_isolation": {
        "en": "refusing to run learner code without isolation: {why}.\n"
              "  Install bubblewrap and libseccomp2 (apt-get install bubblewrap libseccomp2) where user namespaces "
              "are allowed (in Docker: a seccomp profile that allows them, or a VM),\n  or pass --allow-no-barrier "
              "to grade anyway: learner code could then read the hidden cases and solutions.",
        "zh": "拒绝在没有隔离的情况下运行学生代码：{why}。\n"
              "  请在允许用户命名空间的地方安装 bubblewrap 和 libseccomp2（apt-get install bubblewrap libseccomp2）"
              "（在 Docker 中：用允许它们的 seccomp 配置，或者用虚拟机），\n  或者加上 --allow-no-barrier 照样评分："
              "那样学生代码就能读到隐藏用例和参考答案。"},
    "grade.sandbox_failed": {
        "en": "the sandbox could not run, nothing was graded: {error}", "zh": "沙箱无法运行，什么都没有评分：{error}"},
    "grade.sandbox_failed_later": {
        "en": "the sandbox could not run, nothing more was graded: {error}",
        "zh": "沙箱无法运行，之后的提交都没有评分：{error}"},
    "grade.already_graded": {
        "en": "{submission}: already graded and unchanged since (--force to regrade)",
        "zh": "{submission}：已经评过分，之后没有改动（--force 重新评分）"},
    "grade.isolation": {"en": "isolation: {isolation}", "zh": "隔离：{isolation}"},
    # --- what isolated learner code (grader/sandbox_barrier.py, grader/sandbox_zygote.py) ---
    "isolation.barrier": {
        "en": "bubblewrap: a private root filesystem holding only python's standard library{without_site} and "
              "numpy ({folders}), the shared libraries they load, a private /proc, a few /dev nodes, private /tmp "
              "and /dev/shm of 64 MB and 4096 inodes each, all read-only but /tmp and /dev/shm; new user, PID, IPC, "
              "UTS and (empty) network namespaces; learner code runs as uid {uid} with no capabilities",
        "zh": "bubblewrap：一个私有的根文件系统，里面只有 python 的标准库{without_site}和 numpy（{folders}）、它们加载的"
              "共享库、一个私有的 /proc、几个 /dev 设备节点，以及各 64 MB、4096 个 inode 的私有 /tmp 和 /dev/shm，除 /tmp "
              "和 /dev/shm 外全部只读；新的用户、PID、IPC、UTS 和（空的）网络命名空间；学生代码以 uid {uid} 运行，没有任何 "
              "capability"},
    "isolation.without_site": {"en": " (without its site-packages)", "zh": "（不含它的 site-packages）"},
    "isolation.seccomp": {
        "en": "; seccomp: it is one process (no fork), signals and traces no other process, and makes no user namespace",
        "zh": "；seccomp：它只能是一个进程（不能 fork），不能给别的进程发信号或跟踪别的进程，也不能创建用户命名空间"},
    "isolation.no_seccomp": {
        "en": "; no seccomp filter (libseccomp2 is missing): it may start processes, up to RLIMIT_NPROC",
        "zh": "；没有 seccomp 过滤（缺少 libseccomp2）：它可以启动进程，最多到 RLIMIT_NPROC 个"},
    "isolation.none": {"en": "none: {why}; {who}{seccomp}", "zh": "无：{why}；{who}{seccomp}"},
    "isolation.bwrap_failed": {
        "en": "bubblewrap could not build the sandbox (are user namespaces denied here, e.g. by a container's "
              "seccomp profile or kernel.unprivileged_userns_clone=0?): {error}",
        "zh": "bubblewrap 无法建起沙箱（这里是否禁止了用户命名空间，例如容器的 seccomp 配置或 "
              "kernel.unprivileged_userns_clone=0？）：{error}"},
    "isolation.own_uid": {
        "en": "learner code runs as a uid of its own (uid {first} and up, one per submission graded at the same "
              "time) with no capabilities and no_new_privs, in a clean environment; it can still read every "
              "world-readable file (the kit's solutions and hidden cases among them), see every process and write "
              "to world-writable folders",
        "zh": "学生代码以自己的 uid 运行（从 uid {first} 起，同时评分的每份提交一个），没有任何 capability，设置了 "
              "no_new_privs，环境是干净的；它仍然能读所有人可读的文件（包括本套件的参考答案和隐藏用例）、看到所有进程，"
              "并能写所有人可写的文件夹"},
    "isolation.closed": {
        "en": "; {folders} is not readable by it: learner code can import only the modules the sandbox loaded "
              "before changing user",
        "zh": "；它读不了 {folders}：学生代码只能导入沙箱在切换用户之前已经加载的模块"},
    "isolation.grader_uid": {
        "en": "learner code runs as the grader's own user (uid {uid}) in a clean environment; it can read and write "
              "whatever that user can, the hidden cases, the solutions and the other submissions included",
        "zh": "学生代码以评分程序自己的用户（uid {uid}）在干净的环境中运行；这个用户能读写的它都能读写，"
              "包括隐藏用例、参考答案和其他提交"},
    "grade.interrupted": {
        "en": "interrupted after {count} submissions{kept}", "zh": "评完 {count} 份提交后被中断{kept}"},
    "grade.interrupted_kept": {"en": "; they are in {path}", "zh": "；结果在 {path}"},
    "grade.not_graded": {"en": "not graded: {why}", "zh": "未评分：{why}"},
    "grade.files_not_written": {
        "en": "{submission}: graded, but its files could not be written ({why}); its grade is kept, and a rerun "
              "writes them without regrading",
        "zh": "{submission}：已评分，但它的文件无法写入（{why}）；分数已保留，再运行一次会写入这些文件而不重新评分"},
    "grade.roster_unrostered": {
        "en": "--roster: {count} submission(s) no roster row matches (in the gradebook without an id, roster "
              "'unrostered'): {folders}",
        "zh": "--roster：{count} 份提交没有匹配的名单行（在成绩册中没有学号，roster 为 'unrostered'）：{folders}"},
    "grade.roster_ambiguous": {
        "en": "--roster: {folder} matches several roster rows, so none: {rows}; add a folder column to the roster "
              "to say which",
        "zh": "--roster：{folder} 匹配了几行名单，所以一行也不算：{rows}；在名单里加一列 folder 说明是哪一行"},
    "grade.roster_row": {"en": "{id} (line {line})", "zh": "{id}（第 {line} 行）"},
    "grade.roster_duplicate": {
        "en": "--roster: {id} is matched by {count} submissions (roster 'duplicate'): {paths}",
        "zh": "--roster：{id} 被 {count} 份提交匹配（roster 为 'duplicate'）：{paths}"},
    "grade.roster_missing": {
        "en": "--roster: {count} roster student(s) without a submission (status 'missing'): {ids}",
        "zh": "--roster：名单中有 {count} 名学生没有提交（status 为 'missing'）：{ids}"},
    "grade.found_in": {"en": "step files found in {where}/", "zh": "步骤文件在 {where}/ 里"},
    "grade.step_ok": {"en": "ok", "zh": "通过"},
    "grade.step_not_passed": {"en": "{bad} of {total} tests not passed", "zh": "{total} 个测试中 {bad} 个未通过"},
    "grade.step_not_written": {"en": "{module}: not written yet ({count} tests)", "zh": "{module}：还没有写（{count} 个测试）"},
    "grade.hidden_tag": {"en": " [hidden]", "zh": " [隐藏]"},
    "grade.printed": {"en": "the submission printed:", "zh": "提交的代码打印了："},
    "grade.wrote_stderr": {"en": "the submission wrote to stderr:", "zh": "提交的代码写到 stderr 的内容："},
    "grade.progress": {
        "en": "[{count}/{total}] {rate:.1f} submissions/s, {eta:.0f} s left",
        "zh": "[{count}/{total}] 每秒 {rate:.1f} 份提交，还剩 {eta:.0f} 秒"},
    "cases.public_only": {
        "en": "the hidden cases are not here ({folder} is missing), so only the PUBLIC cases are used, each step's "
              "points are shared by them alone and, with no hidden case to show that a function computes, every "
              "passed case pays (a table of the public answers would too). Run from a checkout of the kit, or set "
              "ATTNKIT_ROOT to a folder that holds autograder/cases/.",
        "zh": "隐藏用例不在这里（缺少 {folder}），所以只用公开用例：每一步的分数只分给它们，而且没有隐藏用例来说明函数"
              "真的在计算，每个通过的用例都得分（一张公开答案表也能得分）。请在套件的检出目录中运行，或者把 ATTNKIT_ROOT "
              "设为含有 autograder/cases/ 的文件夹。"},
}


def say(key, **fields):
    """The message `key` in the current language, its placeholders filled from `fields`."""
    return pick(MESSAGES[key]).format(**fields)
