"""MkDocs hooks (mkdocs.yml `hooks:`): the generated parts of the pages.

Before a page is rendered:
- each croq block's `@sample NAME` / `@kernel_sources ARGS` line becomes
  the Croqtile text it names (docblocks.expand_page);
- each line `<!-- generated: WHAT ARGS -->` becomes the generated Markdown:
    rules                      every error rule (gen_rules)
    cpp-api                    the C++ API from include/croq (gen_cpp_api)
    python-api                 the Python API from the built croqjit (gen_python_api)
    help TOOL [COMMAND]        a command's --help text (gen_cli)

The generated parts come from the build tree (CROQ_BUILD_DIR, else build/):
the croq and croq-cache tools, tests/sema_rule_examples, bench/kernel_sources
and the croqjit package. A part that cannot be made fails the build."""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import docblocks  # noqa: E402
import gen_cli  # noqa: E402
import gen_cpp_api  # noqa: E402
import gen_python_api  # noqa: E402
import gen_rules  # noqa: E402

_GENERATED = re.compile(r"^<!--\s*generated:\s*(?P<what>[\w-]+)(?P<args>[^>]*)-->\s*$", re.M)


def generated(what: str, args: list[str]) -> str:
    if what == "rules":
        return gen_rules.markdown()
    if what == "cpp-api":
        return gen_cpp_api.markdown()
    if what == "python-api":
        return gen_python_api.markdown()
    if what == "help" and args:
        return gen_cli.markdown(args[0], *args[1:])
    raise ValueError(f"unknown generated part `{what} {' '.join(args)}`")


def on_page_markdown(markdown: str, page, config, files) -> str:
    path = Path(page.file.abs_src_path)
    markdown = docblocks.expand_page(markdown, path)
    return _GENERATED.sub(lambda m: generated(m["what"], m["args"].split()), markdown)
