"""Reports: text summary, HTML and Markdown, plots as inline SVG."""
