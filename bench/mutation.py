"""Mutation testing of the modules where a silent change hurts a user most.

    python bench/mutation.py [--module companion/zoo.py ...] [--survivors] [--count]

Each mutant is one small change to the source (`<` made `<=`, `and` made `or`, a number one
higher, `not` dropped, ...). It is written over the module, the module's own tests run against
it, and the file is put back. A mutant the tests fail on is killed; one they pass is a survivor:
a change a user could notice that nothing would catch, unless it changes nothing at all (an
equivalent mutant, listed with the reason in bench/mutation-equivalent.txt). Prints per module:
mutants, killed, survived, timed out, equivalent, and the share of the others killed (timed out
counts as killed: an endless loop is noticed). Slow (minutes per module): not part of the suite.

It rewrites files, so it refuses to start on a working tree with uncommitted changes, and it
puts every file back when it ends, fails or is interrupted (Ctrl-C, SIGTERM, SIGHUP).
"""

from __future__ import annotations

import argparse
import ast
import copy
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EQUIVALENT = Path(__file__).with_name("mutation-equivalent.txt")

# module (or module:Class.function, to mutate only that) -> the tests that speak for it, fast ones first.
# Hypothesis' thousands-of-games test (35 s) is left out: the other property tests cover the same rules.
TARGETS = {
    "companion/zombee.py": ["tests/test_zombee.py", "tests/test_zombee_properties.py", "tests/test_legal.py",
                            "-k", "not thousands_of_games"],
    "companion/zombee_dice.py": ["tests/test_zombee_dice.py", "tests/test_zombee.py"],
    "companion/zoo.py": ["tests/test_zoo.py", "tests/test_zoo_props.py", "tests/test_zoo_combat.py", "tests/test_legal.py"],
    "companion/zoo_combat.py": ["tests/test_zoo_combat.py", "tests/test_zoo.py", "tests/test_legal.py"],
    "companion/commands.py": ["tests/test_commands.py", "tests/test_engine.py", "tests/test_limits.py"],
    "companion/logfile.py": ["tests/test_gamelog_files.py", "tests/test_gamelog.py",
                             "tests/test_web_api.py::test_a_command_is_committed_to_the_synced_log_file_before_the_phone_is_answered"],
    "companion/gamelog.py": ["tests/test_gamelog.py", "tests/test_gamelog_files.py", "tests/test_table.py"],
    "web/auth.py": ["tests/test_web_auth.py", "tests/test_web_guard.py"],
    # the reader's decision step: a face, or `unknown` when the model is not sure enough
    "vision/reader.py:DiceReader.classify": [
        "tests/test_vision_reader.py::test_a_die_whose_best_face_is_below_the_models_threshold_reads_unknown",
        "tests/test_vision_reader.py::test_a_face_read_exactly_as_sure_as_the_threshold_is_told_and_a_hair_less_sure_is_unknown",
        "tests/test_vision_reader.py::test_the_shipped_model_reads_each_die_from_one_cut_and_a_nudging_model_reads_doubtful_ones_again",
        "tests/test_vision_reader.py::test_every_die_carries_its_two_likeliest_faces_likelier_first_for_the_table_to_be_asked",
        "tests/test_vision_reader.py::test_a_doubtful_die_is_read_again_cut_smaller_and_larger_and_a_sure_one_is_not",
        "tests/test_vision_calibrate.py::test_a_glossy_die_a_shaken_camera_smears_is_read_from_a_cut_nudged_off_centre"],
    # a pip table's second finder: which dice the pip reader's finder adds to the table's reading
    "vision/name/pipfaces.py:found_by_pips": [
        "tests/test_vision_calibrate.py::test_a_pip_die_lighter_than_the_tables_finder_sees_is_found_by_its_pips",
        "tests/test_vision_calibrate.py::test_a_trays_hole_the_pip_reader_reads_as_a_one_is_no_die_of_the_table"],
    # which of a bee and a ZomBee: the symbol's colour, and whether calibration keeps it
    "vision/name/paircolour.py": ["tests/test_vision_paircolour.py"],
}
NO_MUTATE = "pragma: no mutate"

COMPARE = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
           ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is}
ARITHMETIC = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult,
              ast.FloorDiv: ast.Div, ast.Mod: ast.FloorDiv, ast.Pow: ast.Mult,
              ast.BitOr: ast.BitAnd, ast.BitAnd: ast.BitOr}
SYMBOL = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
          ast.In: "in", ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not", ast.Add: "+", ast.Sub: "-",
          ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**", ast.BitOr: "|",
          ast.BitAnd: "&", ast.And: "and", ast.Or: "or"}


@dataclass(frozen=True)
class Mutant:
    index: int
    line: int
    change: str  # e.g. "< -> <= #1" (#n: the nth such change on that line)
    text: str  # the source line, stripped: what the equivalent list names, so line moves do not matter

    @property
    def key(self) -> tuple[str, str]:
        return self.text, self.change


class Mutator(ast.NodeTransformer):
    """Walks a module; counts every place a mutation can be made and makes the one numbered `target`."""

    def __init__(self, lines: list[str], scope: tuple[int, int] | None, target: int = -1):
        self.lines, self.scope, self.target = lines, scope, target
        self.found: list[tuple[int, str]] = []

    def _site(self, node: ast.AST, change: str) -> bool:
        line = getattr(node, "lineno", 0)
        if self.scope and not self.scope[0] <= line <= self.scope[1]:
            return False
        if NO_MUTATE in self.lines[line - 1]:
            return False
        self.found.append((line, change))
        return len(self.found) - 1 == self.target

    def visit_Expr(self, node):  # docstrings and bare strings: words, not behaviour
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return node
        return self.generic_visit(node)

    def visit_AnnAssign(self, node):
        node.target = self.visit(node.target)
        if node.value is not None:
            node.value = self.visit(node.value)
        return node  # the annotation itself is not run

    def visit_FunctionDef(self, node):
        node.body = [self.visit(n) for n in node.body]
        node.args = self.visit(node.args)
        node.decorator_list = [self.visit(d) for d in node.decorator_list]
        return node  # no return annotation

    def visit_arg(self, node):
        return node  # nor parameter annotations

    def visit_JoinedStr(self, node):
        return node  # f-strings are messages

    def visit_Compare(self, node):
        self.generic_visit(node)
        for i, op in enumerate(node.ops):
            new = COMPARE.get(type(op))
            if new and self._site(node, f"{SYMBOL[type(op)]} -> {SYMBOL[new]}"):
                node.ops[i] = new()
        return node

    def visit_BinOp(self, node):
        self.generic_visit(node)
        new = ARITHMETIC.get(type(node.op))
        if new and self._site(node, f"{SYMBOL[type(node.op)]} -> {SYMBOL[new]}"):
            node.op = new()
        return node

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        new = ARITHMETIC.get(type(node.op))
        if new and self._site(node, f"{SYMBOL[type(node.op)]}= -> {SYMBOL[new]}="):
            node.op = new()
        return node

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        new = ast.Or if isinstance(node.op, ast.And) else ast.And
        if self._site(node, f"{SYMBOL[type(node.op)]} -> {SYMBOL[new]}"):
            node.op = new()
        return node

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not) and self._site(node, "not dropped"):
            return node.operand
        if isinstance(node.op, ast.USub) and self._site(node, "unary - dropped"):
            return node.operand
        return node

    def visit_Constant(self, node):
        v = node.value
        if isinstance(v, bool):
            if self._site(node, f"{v} -> {not v}"):
                return ast.copy_location(ast.Constant(not v), node)
        elif isinstance(v, (int, float)) and not isinstance(v, complex):
            if self._site(node, f"{v!r} -> {v + 1!r}"):
                return ast.copy_location(ast.Constant(v + 1), node)
        return node

    def visit_Break(self, node):
        return ast.copy_location(ast.Continue(), node) if self._site(node, "break -> continue") else node

    def visit_Continue(self, node):
        return ast.copy_location(ast.Break(), node) if self._site(node, "continue -> break") else node


def scope_of(tree: ast.Module, name: str | None) -> tuple[int, int] | None:
    """The lines of Class.function (or function) in tree; None: the whole module."""
    if not name:
        return None
    body, node = tree.body, None
    for part in name.split("."):
        node = next((n for n in body if isinstance(n, (ast.ClassDef, ast.FunctionDef)) and n.name == part), None)
        if node is None:
            raise SystemExit(f"mutation: no {name!r} to mutate")
        body = node.body
    return node.lineno, node.end_lineno


def mutants(source: str, scope: str | None) -> tuple[list[Mutant], ast.Module]:
    tree = ast.parse(source)
    lines = source.splitlines()
    m = Mutator(lines, scope_of(tree, scope))
    m.visit(copy.deepcopy(tree))
    seen: dict[tuple[int, str], int] = {}
    out = []
    for i, (line, change) in enumerate(m.found):
        n = seen[line, change] = seen.get((line, change), 0) + 1
        out.append(Mutant(i, line, f"{change} #{n}", lines[line - 1].strip()))
    return out, tree


def mutated(tree: ast.Module, source: str, scope: str | None, index: int) -> str:
    m = Mutator(source.splitlines(), scope_of(tree, scope), index)
    return ast.unparse(ast.fix_missing_locations(m.visit(copy.deepcopy(tree)))) + "\n"


def run_tests(args: list[str], timeout: float) -> str:
    """'passed', 'failed' or 'timeout': the tests run in a forked child of this process, which
    has the test libraries imported already but none of the project (so the child imports the
    file as it is on disk now)."""
    import pytest

    pid = os.fork()
    if pid == 0:  # the child
        os.setpgid(0, 0)  # its own group: a timeout ends the tests' own subprocesses with it
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        try:
            code = pytest.main([*args, "-x", "-q", "-p", "no:cacheprovider", "-o", "addopts="])
        except BaseException:
            code = 3
        os._exit(int(code))
    deadline = time.monotonic() + timeout
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return "passed" if os.waitstatus_to_exitcode(status) == 0 else "failed"
            if time.monotonic() > deadline:
                return "timeout"
            time.sleep(0.05)  # a bench script waiting on a child: nothing to be notified by
    finally:  # a timeout, Ctrl-C or SIGTERM: the tests (and their own children) end too
        try:
            os.killpg(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ChildProcessError, ProcessLookupError):
            pass  # already ended and reaped


def equivalents() -> dict[str, set[tuple[str, str]]]:
    """bench/mutation-equivalent.txt: `module | source line | change | reason` per line."""
    out: dict[str, set[tuple[str, str]]] = {}
    for raw in EQUIVALENT.read_text().splitlines() if EQUIVALENT.exists() else []:
        if raw.strip() and not raw.startswith("#"):
            module, text, change, _reason = (p.strip() for p in raw.split(" | ", 3))
            out.setdefault(module, set()).add((text, change))
    return out


def dirty() -> list[str]:
    out = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True, check=True)
    return out.stdout.splitlines()


def interrupted(signum, _frame):
    raise KeyboardInterrupt(f"signal {signum}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--module", action="append", choices=sorted(TARGETS), help="only these (repeatable)")
    parser.add_argument("--survivors", action="store_true", help="print each surviving mutant")
    parser.add_argument("--count", action="store_true", help="only count the mutants; run nothing")
    args = parser.parse_args()
    targets = {k: TARGETS[k] for k in (args.module or TARGETS)}

    if not args.count and (changes := dirty()):
        print(f"mutation: refused: the working tree has {len(changes)} uncommitted change(s) "
              f"(first: {changes[0].strip()}); commit or stash them, this script rewrites source files")
        return 2

    os.chdir(ROOT)
    sys.path.insert(0, str(ROOT))
    os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    os.environ["PYTHONDONTWRITEBYTECODE"] = "1"  # no cached bytecode of a mutant outlives it
    sys.dont_write_bytecode = True
    for heavy in ("pytest", "hypothesis", "numpy", "cv2", "flask", "waitress"):  # once, not per mutant
        __import__(heavy)
    equivalent = equivalents()
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):  # SIGINT too: a shell may start us ignoring it
        signal.signal(sig, interrupted)

    rows = []
    for target, tests in targets.items():
        path_name, _, scope = target.partition(":")
        path = ROOT / path_name
        original = path.read_bytes()
        source = original.decode("utf-8")
        found, tree = mutants(source, scope or None)
        known = equivalent.get(target, set())
        if args.count:
            print(f"{target}: {len(found)} mutants")
            continue
        start = time.monotonic()
        baseline = run_tests(tests, timeout=900)
        if baseline != "passed":
            print(f"{target}: its tests do not pass unmutated ({baseline}); skipped")
            continue
        timeout = 3 * (time.monotonic() - start) + 10
        results: dict[str, list[Mutant]] = {"killed": [], "survived": [], "timeout": [], "equivalent": []}
        try:
            for mutant in found:
                path.write_text(mutated(tree, source, scope or None, mutant.index))
                outcome = run_tests(tests, timeout)
                if outcome == "passed":
                    outcome = "equivalent" if mutant.key in known else "survived"
                results["killed" if outcome == "failed" else outcome].append(mutant)
        finally:
            path.write_bytes(original)  # also on Ctrl-C, SIGTERM and any error
        k, s, t, e = (len(results[x]) for x in ("killed", "survived", "timeout", "equivalent"))
        share = 100.0 * (k + t) / max(k + s + t, 1)
        rows.append(share)
        print(f"{target}: {len(found)} mutants, killed {k}, survived {s}, timed out {t}, equivalent {e}; "
              f"{share:.1f} % of the non-equivalent killed ({time.monotonic() - start:.0f} s)", flush=True)
        if args.survivors:
            for m in results["survived"]:
                print(f"    {target} | {m.text} | {m.change}   (line {m.line})")
    if not args.count and dirty():
        print("mutation: the working tree is not as it was; `git diff` shows what")
        return 1
    return 0 if all(r >= 90.0 for r in rows) else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("mutation: interrupted; every file it changed was put back")
        sys.exit(130)
