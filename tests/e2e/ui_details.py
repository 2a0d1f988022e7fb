"""A workflow's current details read as the Temporal UI reads them, without a browser: the UI server's HTTP API
(the built-in `__temporal_workflow_metadata` query, behind its CSRF cookie), then the codec server's `/decode`,
which the UI calls for every payload (azmc's are encrypted)."""

import base64
import http.cookiejar
import json
import urllib.parse
import urllib.request
from typing import Any

METADATA_QUERY = "__temporal_workflow_metadata"


def _post(opener: urllib.request.OpenerDirector, url: str, body: Any, headers: dict[str, str]) -> Any:
    request = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json", **headers})
    with opener.open(request, timeout=10) as answer:
        return json.load(answer)


def current_details(ui_port: int, codec_port: int, workflow_id: str, namespace: str = "default") -> str:
    """The Markdown the UI shows under the workflow's "User Metadata": its current details, decoded."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    ui = f"http://127.0.0.1:{ui_port}"
    opener.open(f"{ui}/api/v1/settings", timeout=10).close()  # the UI's first call; it sets the _csrf cookie
    csrf = next(cookie.value for cookie in jar if cookie.name == "_csrf")
    path = f"/api/v1/namespaces/{namespace}/workflows/{urllib.parse.quote(workflow_id, safe='')}/query/{METADATA_QUERY}"
    answer = _post(opener, ui + path, {"query": {"queryType": METADATA_QUERY}}, {"X-CSRF-Token": csrf})
    sealed = {"payloads": answer["queryResult"]["payloads"]}
    opened = _post(opener, f"http://127.0.0.1:{codec_port}/decode", sealed, {"X-Namespace": namespace})
    metadata = json.loads(base64.b64decode(opened["payloads"][0]["data"]))  # json/protobuf WorkflowMetadata
    return str(metadata.get("currentDetails", ""))
