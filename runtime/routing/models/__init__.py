"""The ``embedded`` strategy's models: the multilingual ``sentence`` encoder, the static
English ``encoder`` (weights in ``static/``), the ``lexical`` index and the ``language`` a text
is in, combined by ``embedded``."""
