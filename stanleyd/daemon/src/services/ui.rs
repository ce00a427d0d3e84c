//! The `Ui` gRPC service: starts the local page (or finds it running) and hands out its address.

use std::sync::Arc;

use stanley_proto::v1::ui_server::Ui;
use stanley_proto::v1::{OpenUiRequest, OpenUiResponse};
use tonic::{Request as GrpcRequest, Response as GrpcResponse, Status};

use crate::state::DaemonState;
use crate::ui::open;

pub(crate) struct UiService {
    state: Arc<DaemonState>,
}

impl UiService {
    pub(crate) fn new(state: Arc<DaemonState>) -> Self {
        Self { state }
    }
}

#[tonic::async_trait]
impl Ui for UiService {
    async fn open_ui(
        &self,
        _request: GrpcRequest<OpenUiRequest>,
    ) -> Result<GrpcResponse<OpenUiResponse>, Status> {
        self.state.activity().touch();
        let (url, port, started) = open(&self.state)?;
        Ok(GrpcResponse::new(OpenUiResponse {
            url,
            port: u32::from(port),
            started,
        }))
    }
}
