"""plcg serve: the campaign as a local web page (issue 34)."""
