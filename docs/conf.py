"Sphinx configuration of the offline docs site (built by docs/build.py from nbdev's processed notebooks; `nbdev_docs` renders the same notebooks with Quarto where Quarto is installed)."
project = "eagle3_nb"
author = "eagle3_nb developers"
copyright = "2026 onwards, eagle3_nb developers"
extensions = ["myst_nb"]
myst_enable_extensions = ["attrs_inline", "colon_fence", "dollarmath"]
nb_execution_mode = "off"                # render the outputs stored in the notebooks; never execute
nb_render_markdown_format = "myst"       # show_doc output is Markdown
html_theme = "furo"
html_title = "eagle3_nb"
html_static_path = []
exclude_patterns = ["_build", "**.ipynb_checkpoints"]
suppress_warnings = ["myst.header", "mystnb.unknown_mime_type", "myst.xref_missing", "misc.highlighting_failure"]
