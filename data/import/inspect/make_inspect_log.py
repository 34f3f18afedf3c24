"""Writes an Inspect AI evaluation log whose scores are model-graded, with mock models, offline.

The solver model (mockllm/model) answers 12 short questions; a model-graded scorer
(model_graded_qa, grader mockllm/grader) grades each answer C (correct) or I (incorrect).
Each sample's metadata holds a human grade of the same answer (the gold for the grader).
The planned grader errs on 3 samples (q04, q07, q11): a lenient grade on two wrong answers
and a harsh one on a right answer.
Run: python make_inspect_log.py  (inspect-ai 0.3.285; writes logs/*.json; offline: token counts are
word counts, since tiktoken would download its table)
"""
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, get_model
from inspect_ai.scorer import model_graded_qa
from inspect_ai.model._model import ModelAPI
from inspect_ai.solver import generate


async def whitespace_tokens(self, text):
    return max(1, len(text.split()))


# Offline: the mock model's usage count would download tiktoken's o200k_base table; count words instead.
ModelAPI.count_text_tokens = whitespace_tokens

# id, question, target, the solver's answer, the human grade, the planned grader grade
ROWS = [
    ("q01", "What is 7 times 8?", "56", "7 times 8 is 56.", "C", "C"),
    ("q02", "What is the capital of Australia?", "Canberra", "Sydney.", "I", "I"),
    ("q03", "How many sides does a hexagon have?", "6", "A hexagon has six sides.", "C", "C"),
    ("q04", "What is the boiling point of water at sea level in Celsius?", "100", "About 90 degrees.", "I", "C"),
    ("q05", "Who wrote 'Pride and Prejudice'?", "Jane Austen", "Jane Austen.", "C", "C"),
    ("q06", "What is the chemical symbol for gold?", "Au", "Ag.", "I", "I"),
    ("q07", "What is the square root of 81?", "9", "The square root of 81 is 9.", "C", "I"),
    ("q08", "Which planet is closest to the Sun?", "Mercury", "Mercury.", "C", "C"),
    ("q09", "How many minutes are in two hours?", "120", "100 minutes.", "I", "I"),
    ("q10", "What is the largest ocean on Earth?", "Pacific", "The Pacific Ocean.", "C", "C"),
    ("q11", "In which year did the first Moon landing take place?", "1969", "It was in 1972.", "I", "C"),
    ("q12", "What gas do plants absorb from the air for photosynthesis?", "Carbon dioxide", "Carbon dioxide (CO2).", "C", "C"),
]
ANSWER = {q: a for _, q, _, a, _, _ in ROWS}
GRADE = {q: g for _, q, _, _, _, g in ROWS}


def solver_output(messages, tools, tool_choice, config):
    question = messages[-1].text.strip()
    return ModelOutput.from_content("mockllm/model", ANSWER[question])


def grader_output(messages, tools, tool_choice, config):
    prompt = messages[-1].text
    question = next(q for q in GRADE if q in prompt)
    return ModelOutput.from_content("mockllm/grader", f"The answer was compared with the criterion.\n\nGRADE: {GRADE[question]}")


dataset = [
    Sample(id=i, input=q, target=t, metadata={"human_grade": h}) for i, q, t, _, h, _ in ROWS
]
grader = get_model("mockllm/grader", custom_outputs=grader_output)
task = Task(dataset=dataset, solver=generate(), scorer=model_graded_qa(model=grader), name="qa_graded")
eval(task, model=get_model("mockllm/model", custom_outputs=solver_output), log_format="json", log_dir="logs",
     max_samples=1, display="none")

# Trim for the bundled test file (< 50 KB): drop each sample's event transcript and attachments
# (the transcript of the two model calls, ~8 KB a sample) and the per-epoch score reductions;
# everything else is Inspect's log as written.
import glob
import json

log = json.load(open(sorted(glob.glob("logs/*.json"))[-1]))
for sample in log["samples"]:
    for key in ("events", "events_data", "attachments"):
        sample.pop(key, None)
log.pop("reductions", None)
with open("qa_graded.json", "w") as out:
    json.dump(log, out, indent=2, ensure_ascii=False)
    out.write("\n")
