//! How a [`HostError`] goes over HTTP: its status, and the one error
//! shape as the body.

use axum::Json;
use axum::response::{IntoResponse, Response};

use crate::service::error::HostError;

impl IntoResponse for HostError {
    fn into_response(self) -> Response {
        self.log_cause();
        (self.status(), Json(self.body())).into_response()
    }
}
