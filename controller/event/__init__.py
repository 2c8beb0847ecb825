"""Club events: every board publishes its table to an MQTT broker, and ``tavola event``
follows and referees every table from one page (docs/event.md)."""
