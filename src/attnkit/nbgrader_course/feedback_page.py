"""The course's feedback page: nbgrader's own template, with each test cell named by its step in the
summary (not "Test cell" once per step), a font stack that has CJK fonts for the Chinese text, and a
small stylesheet of its own in place of the ~220 kB of Bootstrap and notebook CSS nbgrader inlines in
every page; the provided cells' code (the same in every notebook) is shown as one line, and the other
code cells as plain text: pygments' highlighting spans made a step's code cell 2.5 times its text, and
with the stubs' docstrings in two languages the page passed 100 kB.

`nbgrader generate_feedback` uses it through nbgrader_config.py: HTMLExporter.template_file names this
file, whose folder nbconvert then searches first; nbgrader's template (template_name "feedback") is
the `index.html.j2` it extends.
"""
import json

from .. import manifest
from attnkit_runtime.i18n import pick
from attnkit_runtime.messages import say

TEMPLATE = "feedback_templates/attnkit_feedback.html.j2"  # in the course root, beside nbgrader_config.py

# Prose and code: Latin fonts first, then CJK fonts for the characters they lack (Linux, macOS, Windows).
SANS = ('"Helvetica Neue", Helvetica, Arial, "Noto Sans CJK SC", "Source Han Sans SC", "WenQuanYi Micro Hei", '
        '"PingFang SC", "Microsoft YaHei", sans-serif')
MONO = ('Menlo, Consolas, "DejaVu Sans Mono", "Noto Sans Mono CJK SC", "Noto Sans CJK SC", "Source Han Sans SC", '
        '"PingFang SC", "Microsoft YaHei", monospace')
CSS = (f"body, .rendered_html, .nbgrader-label {{ font-family: {SANS}; }}\n"
       f"pre, code, kbd, samp, .output_text, .output_error, .CodeMirror {{ font-family: {MONO}; }}")
# The page's own layout: cells, nbgrader's panels and scores, outputs.
LAYOUT = """body { margin: 1em auto; max-width: 70em; padding: 0 1em; font-size: 14px; line-height: 1.45; color: #222; }
.panel { border: 1px solid #ccc; border-radius: 4px; margin: 0.6em 0; }
.panel-heading { background: #f3f3f3; padding: 0.4em 0.6em; border-bottom: 1px solid #ccc; }
.panel-primary > .panel-heading { background: #e8eef7; }
.panel-body { padding: 0.4em 0.6em; }
.pull-right { float: right; }
.cell { margin: 0.5em 0; }
.prompt { display: none; }
pre { white-space: pre-wrap; margin: 0.3em 0; }
.input_area pre { background: #f7f7f7; padding: 0.4em; border-radius: 3px; }
.output_stderr, .output_error pre { background: #fdecec; }
.late-penalty { color: #d2413a; }
.ansi-red-fg { color: #c00; } .ansi-green-fg { color: #080; } .ansi-cyan-fg { color: #088; }
.ansi-bold { font-weight: bold; }"""
PROVIDED = ("shape_checks", "attnkit_checks", "earlier_steps")  # grade_ids whose code every notebook shares

STEP_LABEL = {"en": "step {number} · {name}", "zh": "第 {number} 步 · {name}"}


def step_labels():
    """{test cell grade_id: "step 2 · scores"} for every step of every track."""
    return {f"test_{s.module}": pick(STEP_LABEL).format(number=s.number, name=s.module.split("_", 1)[1].replace("_", " "))
            for s in manifest.steps()}


def template():
    """The template: nbgrader's feedback page, its summary's test cells named by step, the CJK font stack,
    its own small stylesheet, the provided cells' code as one line and the others' as plain text."""
    labels = json.dumps(step_labels(), ensure_ascii=False)
    return f"""{{%- extends 'index.html.j2' -%}}
{{#- Written by `attnkit nbgrader-course`: nbgrader's feedback page with the test cells named by their step
    in the summary, and fonts for Chinese text. -#}}
{{%- block header -%}}
<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8" />
<title>{{{{ resources.nbgrader.notebook }}}}</title>
<style>
{LAYOUT}
{CSS}
</style>
</head>
{{%- endblock header -%}}
{{% block input %}}
{{%- if cell.metadata.nbgrader and cell.metadata.nbgrader.grade_id in {list(PROVIDED)!r} -%}}
<div class="inner_cell"><div class="input_area"><pre># {{{{ cell.metadata.nbgrader.grade_id }}}}: {say('notebook.provided_code')}</pre></div></div>
{{%- else -%}}
<div class="inner_cell"><div class="input_area"><pre>{{{{ cell.source | escape }}}}</pre></div></div>
{{%- endif -%}}
{{% endblock input %}}
{{% block body %}}
{{%- set step_labels = {labels} -%}}
<body>
  <a name="top"></a>
  <div class="container">
    <div class="panel panel-default">
      <div class="panel-heading">
        <h4>{{{{ resources.nbgrader.notebook }}}} (Score: {{{{ resources.nbgrader.score | float | round(2) }}}} / {{{{ resources.nbgrader.max_score | float | round(2) }}}})</h4>
        <div id="toc">
          <ol>
          {{% for cell in nb.cells %}}
            {{% if cell.metadata.nbgrader and cell.metadata.nbgrader.grade and cell.metadata.nbgrader.points %}}
            <li><a href="#{{{{ cell.metadata.nbgrader.grade_id }}}}">{{{{ step_labels.get(cell.metadata.nbgrader.grade_id, cell.metadata.nbgrader.grade_id) }}}}</a> (Score: {{{{ cell.metadata.nbgrader.score | float | round(2) }}}} / {{{{ cell.metadata.nbgrader.points | float | round(2) }}}})</li>
            {{% endif %}}
          {{% endfor %}}
          {{% if resources.nbgrader.late_penalty > 0 %}}
            <li class="late-penalty">Late submission penalty (Score: -{{{{ resources.nbgrader.late_penalty | float | round(2) }}}})</li>
          {{% endif %}}
          </ol>
        </div>
      </div>
      <div class="panel-body">
        <div id="notebook" class="border-box-sizing">
          <div class="container" id="notebook-container">
            {{{{ self.body_loop() }}}}
          </div>
        </div>
      </div>
    </div>
  </div>
</body>
{{%- endblock body %}}
"""


def config_lines():
    """The lines of nbgrader_config.py that make generate_feedback use the template."""
    return f'''
# The feedback page: nbgrader's, with each test cell named by its step in the summary and CJK fonts
# ({TEMPLATE}, written by `attnkit nbgrader-course`; it extends nbgrader's own template).
c.HTMLExporter.template_file = os.path.join(os.path.dirname(os.path.abspath(__file__)), {TEMPLATE!r})
'''
