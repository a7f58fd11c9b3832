"""Property-based testing of the HTTP API against its own OpenAPI schema (schemathesis).

Schemathesis generates valid and invalid requests for every operation from the served
schema. Whatever it sends, the API must answer with a status the schema documents, the
declared content type, a body matching the declared schema, and never a 5xx.

The schema is loaded from an app at import time (its schema needs no memory); each test
then points that app at the test's memory. (schemathesis' ``from_fixture`` loader relies on
pytest internals that pytest 9 no longer has.)
"""

from __future__ import annotations

from typing import Iterator

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (content_type_conformance, response_schema_conformance,
                                               status_code_conformance)

from engine import Memory
from engine.faces.http import create_app

FACTS = ["The staging cluster runs 3 replicas of the ingest service behind nginx.",
         {"text": "Write the migration guide for the v2 storage format before release.", "tags": ["todo"]},
         {"text": "Ivan Petrov works at Northwind, a logistics company based in Kazan.",
          "entities": [{"name": "Ivan Petrov", "type": "person"}, {"name": "Northwind", "type": "company"}],
          "relations": [["Ivan Petrov", "works_at", "Northwind"]]}]
APP = create_app(None, max_body=64_000, allowed_hosts=["testserver"])  # schemathesis's Host
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)


@pytest.fixture
def served(memory: Memory) -> Iterator[Memory]:
    memory.absorb(FACTS)
    memory.absorb(["A draft about the ingest service that nobody applied yet, kept for review."], dry_run=True)
    APP.app.state.memory = memory
    yield memory
    APP.app.state.memory = None


@pytest.mark.slow
@schema.parametrize()
@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_request_makes_the_api_fail(case, served: Memory) -> None:
    case.call_and_validate(checks=[not_a_server_error, status_code_conformance, content_type_conformance,
                                   response_schema_conformance])
