"""rtgauge serve: the result store in a browser and a JSON API (Starlette on
uvicorn). app.py wires the routes; access.py decides who may read and push;
intake.py takes a pushed bundle; pages.py and api.py answer; views.py reads
the store for both; frame.py puts a report, rendered by the same exporter
the command line uses, into the dashboard's frame."""
