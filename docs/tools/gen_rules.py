"""The error-rule reference (docs/reference/errors.md), generated from
src/sema/rules.def: every rule's id, what it requires, an example that
breaks it (the rule's first case in tests/sema/*_cases.cpp, its
first with a hint where one has, where
croq_sema_tests checks its exact message, hint and caret), the diagnostics
croq::compile renders for that example, and the fix."""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess

from docblocks import REPO, build_dir

RULES_DEF = REPO / "src" / "sema" / "rules.def"
_RULE = re.compile(r'^CROQ_SEMA_(RULE|LIMIT)\(\s*(\w+),\s*"([^"]+)",\s*"((?:[^"\\]|\\.)*)"\)\s*$')


@dataclasses.dataclass
class Rule:
    id: str
    summary: str
    limitation: bool
    area: str


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def rules() -> list[Rule]:
    """The rules of rules.def in order, each with its area (the comment that
    opens its group)."""
    out, area, comment, header_done = [], "", [], False
    for line in RULES_DEF.read_text(encoding="utf-8").splitlines():
        if line.startswith("//"):
            comment.append(line[2:].strip())
            continue
        if not line.strip():
            if comment and header_done:
                area = " ".join(comment)
            header_done = True
            comment = []
            continue
        m = _RULE.match(line)
        if not m:
            raise ValueError(f"{RULES_DEF}: cannot read `{line}`")
        if comment:
            area, comment = " ".join(comment), []
        out.append(Rule(m[3], _unescape(m[4]), m[1] == "LIMIT", area))
    return out


def rule_cases() -> list[dict]:
    tool = build_dir() / "tests" / "docs" / "sema_rule_examples"
    if not tool.exists():
        raise FileNotFoundError(f"{tool} is not built (ninja -C {build_dir()} sema_rule_examples)")
    return json.loads(subprocess.run([str(tool)], check=True, capture_output=True, text=True).stdout)


def _fence(text: str, language: str) -> str:
    return f"```{language}\n{text.rstrip()}\n```\n"


def markdown() -> str:
    # Each rule's first case, or its first with a hint (the hint is the fix).
    cases: dict[str, dict] = {}
    for case in rule_cases():
        if case["rule"] not in cases or (case["hint"] and not cases[case["rule"]]["hint"]):
            cases[case["rule"]] = case
    out, area = [], None
    all_rules = rules()
    out.append(f"{len(all_rules)} rules, {sum(r.limitation for r in all_rules)} of them limitations.\n")
    for rule in all_rules:
        if rule.area != area:
            area = rule.area
            title = re.sub(r"\s*\([^)]*\)$", "", area)
            out.append(f"## {title}\n")
        case = cases.get(rule.id)
        if case is None:
            raise ValueError(f"rule {rule.id} has no case in tests/sema (rules_test.cpp requires one)")
        out.append(f"### `{rule.id}` {{ #{rule.id} }}\n")
        if rule.limitation:
            out.append("*A limitation of libcroqjit, not a rule of Croqtile:* `croq check` reports it as a "
                       "warning and accepts the file; `croq::compile` rejects it.\n")
        out.append(f"**Rule:** {rule.summary}.\n")
        target = f" (with `CompileOptions::arch = \"{case['arch']}\"`)" if case["arch"] else ""
        out.append(f"**Example**{target}:\n")
        out.append(_fence(case["source"], "croq"))
        out.append("**Reported:**\n")
        out.append(_fence(case["rendered"], "text"))
        fix = case["hint"] or f"change the kernel so that {rule.summary}"
        out.append(f"**Fix:** {fix[0].upper() + fix[1:]}{'' if fix.endswith(('.', '?', ')')) else '.'}\n")
    return "\n".join(out)


if __name__ == "__main__":
    print(markdown())
