"""The camera view (latest JPEG + detections) and the seat calibration."""

from __future__ import annotations

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import Response

from .app import admin
from .models import CalibrationIn, CameraMeta

router = APIRouter(prefix="/api", tags=["camera"])


@router.get("/camera", response_model=CameraMeta, summary="The latest frame's detections and size")
def camera_meta(request: Request):
    frame = request.app.state.feed.frame()
    if frame is None:
        return CameraMeta(available=False)
    return CameraMeta(available=True, **frame.meta())


@router.get("/camera.jpg", summary="The latest camera frame",
            response_class=Response, responses={200: {"content": {"image/jpeg": {}}}, 404: {}})
def camera_jpeg(request: Request):
    frame = request.app.state.feed.frame()
    if frame is None:
        raise HTTPException(404, "no camera frame yet")
    return Response(frame.jpeg, media_type="image/jpeg",
                    headers={"Cache-Control": "no-store", "X-Frame-Index": str(frame.index)})


@router.get("/calibration", summary="The seat calibration (interfaces.md), null when none is set")
def get_calibration(request: Request) -> dict | None:
    return request.app.state.config.calibration


@router.put("/calibration", summary="Move the table centre and seat points (referee)",
            responses={401: {}, 403: {}, 422: {}})
def put_calibration(body: CalibrationIn, request: Request, who: str = Depends(admin)) -> dict:
    w, h = body.image_size
    for name, (x, y) in [("center", body.center)] + [(f"seats[{i}]", p) for i, p in enumerate(body.seats)]:
        if not (0 <= x <= w and 0 <= y <= h):
            raise HTTPException(422, f"calibration {name} ({x}, {y}) lies outside the image {w}x{h}")
    cal = body.model_dump()
    state = request.app.state
    state.config = state.config.with_calibration(cal)
    state.feed.calibration_changed(cal)
    return cal
