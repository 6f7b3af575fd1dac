"""Errors the scripted model answers with, in the body shape and with the types and codes of the real API.

`{"error": {"message", "type", "param", "code"}}`; the SDK turns it into `e.body`, `e.type`,
`e.code`, `e.param`. Messages quote the real API's where public error reports show them.
"""

from __future__ import annotations

import math

import httpx2

from course.errors import CourseError
from course.scripted.turns import Fail


class APIRejection(CourseError):
    """A request the real API refuses; becomes `openai.BadRequestError` (or the status's error)."""

    def __init__(self, message: str, param: str | None = None, code: str | None = None, *, status: int = 400,
                 kind: str = "invalid_request_error"):
        super().__init__(message)
        self.message, self.param, self.code, self.status, self.kind = message, param, code, status, kind


def error_body(message: str, kind: str = "invalid_request_error", param: str | None = None,
               code: str | None = None) -> dict:
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


def error_response(rejection: APIRejection, headers: dict | None = None) -> httpx2.Response:
    body = error_body(rejection.message, rejection.kind, rejection.param, rejection.code)
    return httpx2.Response(rejection.status, json=body, headers=headers or {})


# status -> (type, code, default message) as the real API sends them
FAILURES = {
    400: ("invalid_request_error", None, "The request was invalid."),
    401: ("invalid_request_error", "invalid_api_key", ("Incorrect API key provided: sk-*****. You can find your "
                                                        "API key at https://platform.openai.com/account/api-keys.")),
    403: ("invalid_request_error", "unsupported_country_region_territory",
          "Country, region, or territory not supported"),
    404: ("invalid_request_error", "model_not_found",
          "The model does not exist or you do not have access to it."),
    429: ("requests", "rate_limit_exceeded", "Rate limit reached. Please try again later."),
}
SERVER_ERROR = ("server_error", None, "The server had an error while processing your request. Sorry about that!")


def failure(fail: Fail) -> httpx2.Response:
    """The response for a scripted `Fail(status)`."""
    kind, code, text = FAILURES.get(fail.status, SERVER_ERROR if fail.status >= 500 else FAILURES[400])
    headers = {}
    if fail.retry_after is not None:
        headers = {"retry-after-ms": str(int(fail.retry_after * 1000)),
                   "retry-after": str(math.ceil(fail.retry_after))}
    return error_response(APIRejection(fail.message or text, None, code, status=fail.status, kind=kind), headers)


def unknown_model(model: str) -> APIRejection:
    return APIRejection(f"The model `{model}` does not exist or you do not have access to it.", None,
                        "model_not_found", status=404)


def script_error(message: str, param: str | None = None) -> APIRejection:
    """The script asked for an answer the real API could never give (a test's mistake, not the code's)."""
    return APIRejection("Scripted model: " + message, param, "scripted_model_script_error")


class ReadStall(httpx2.ReadTimeout):
    """What the SDK sees for a `Timeout()` turn; served over HTTP, the server stalls instead."""

    def __init__(self, seconds: float, request: httpx2.Request):
        super().__init__("scripted timeout: no answer in time", request=request)
        self.seconds = seconds
