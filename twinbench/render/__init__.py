"""Every output format, one module per output, each reading a typed result.

* :mod:`twinbench.render.tables`: the plain formats the others build on (text table,
  markdown table, CSV, JSON) and :mod:`twinbench.render.output` (writing an output);
* :mod:`twinbench.render.score`, :mod:`~twinbench.render.compare`, :mod:`~twinbench.render.replay`,
  :mod:`~twinbench.render.pairs`, :mod:`~twinbench.render.functions`: each command's text, CSV,
  markdown and JSON;
* :mod:`twinbench.render.svg`: the charts; :mod:`twinbench.render.html_report`: the HTML report
  (with ``templates/``).
"""
