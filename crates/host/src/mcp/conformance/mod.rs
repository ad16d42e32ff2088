//! The official MCP conformance suite's fixtures, mounted beside the
//! negotiation tools on the same MCP service (the `conformance` feature,
//! for `examples/conformance_server.rs` only; `index` never carries it).
//!
//! The suite's scenarios call tools, prompts and resources of its own
//! reference server (`test_simple_text`, `test_simple_prompt`,
//! `test://static-text`, …). [`ConformanceServer`] answers those names and
//! hands every other request to the [`NegotiatorServer`] it wraps, so the
//! suite judges the host's own request handling on every call: rmcp's
//! per-request metadata and header checks, the host's gate in front of
//! rmcp, its signed `requestState` (the same signing key and format its
//! parked-question forms use) and its task store.
//!
//! | module | holds |
//! |---|---|
//! | `content` | the fixture tools that answer at once, the prompts, resources and completion |
//! | `asking` | the fixtures that ask through `input_required`, their state signed by the host |
//! | `tasks` | the fixtures that run as tasks in the host's task store |

mod asking;
mod content;
mod tasks;

use std::sync::LazyLock;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, CompleteRequestParams,
    CompleteResult, CustomRequest, CustomResult, GetPromptRequestParams, GetPromptResponse,
    GetTaskParams, GetTaskResult, InitializeRequestParams, InitializeResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, SubscribeRequestParams, SubscriptionFilter,
    Tool, UnsubscribeRequestParams, UpdateTaskParams,
};
use rmcp::service::{RequestContext, SubscriptionContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};

use crate::mcp::NegotiatorServer;
use crate::service::host::Host;

/// A [`NegotiatorServer`] with the suite's fixtures beside its tools.
#[derive(Debug, Clone)]
pub(crate) struct ConformanceServer {
    inner: NegotiatorServer,
}

impl ConformanceServer {
    /// The fixtures beside a server whose callers are authenticated per
    /// request, as `index serve`'s are.
    pub(crate) fn per_request(host: Host) -> Self {
        ConformanceServer {
            inner: NegotiatorServer::per_request(host),
        }
    }
}

/// Every fixture tool, in the order `tools/list` shows them (after the
/// host's own).
static FIXTURE_TOOLS: LazyLock<Vec<Tool>> = LazyLock::new(|| {
    let mut tools = content::tools();
    tools.extend(asking::tools());
    tools.extend(tasks::tools());
    tools
});

/// The result `value` describes, as the suite's reference server writes
/// it; complete unless it says otherwise (the current protocol's results
/// all say which they are).
fn from_json<T: serde::de::DeserializeOwned>(mut value: serde_json::Value) -> Result<T, ErrorData> {
    if let Some(result) = value.as_object_mut() {
        result
            .entry("resultType")
            .or_insert_with(|| serde_json::Value::from("complete"));
    }
    serde_json::from_value(value).map_err(|err| ErrorData::internal_error(err.to_string(), None))
}

impl ServerHandler for ConformanceServer {
    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        self.inner.initialize(request, context).await
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        self.inner.on_custom_request(request, context).await
    }

    /// The host's capabilities, with the prompts and completions the
    /// fixtures add.
    fn get_info(&self) -> InitializeResult {
        let mut info = self.inner.get_info();
        info.capabilities.prompts = Some(Default::default());
        info.capabilities.completions = Some(Default::default());
        info
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut listed = self.inner.list_tools(request, context).await?;
        listed.tools.extend(FIXTURE_TOOLS.iter().cloned());
        Ok(listed)
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        let fixture = FIXTURE_TOOLS.iter().find(|tool| tool.name == name);
        fixture.cloned().or_else(|| self.inner.get_tool(name))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let host = &self.inner.tools.host;
        if let Some(answer) = content::call(&request, &context).await {
            return answer;
        }
        if let Some(answer) = asking::call(host, &request, &context).await {
            return answer;
        }
        if let Some(answer) = tasks::call(&self.inner, &request, &context).await {
            return answer;
        }
        self.inner.call_tool(request, context).await
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let mut prompts = content::prompts();
        prompts.extend(asking::prompts());
        Ok(ListPromptsResult::with_all_items(prompts))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        match asking::prompt(&request) {
            Some(answer) => answer,
            None => content::prompt(&request).map(GetPromptResponse::Complete),
        }
    }

    async fn complete(
        &self,
        _request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        from_json(serde_json::json!({"completion": {"values": [], "total": 0, "hasMore": false}}))
    }

    /// The host's resources (the caller's negotiations), then the fixtures'.
    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let mut listed = self.inner.list_resources(request, context).await?;
        listed.resources.extend(content::resources());
        Ok(listed)
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let mut listed = self.inner.list_resource_templates(request, context).await?;
        listed.resource_templates.extend(content::templates());
        Ok(listed)
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        match content::read(&request.uri) {
            Some(read) => read.map(ReadResourceResponse::Complete),
            None => self.inner.read_resource(request, context).await,
        }
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        self.inner.accepted_subscription_filter(requested)
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        self.inner.listen(context).await
    }

    #[allow(deprecated)] // the older clients' way, served as the host serves it
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.inner.subscribe(request, context).await
    }

    #[allow(deprecated)] // the older clients' way, served as the host serves it
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.inner.unsubscribe(request, context).await
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        self.inner.get_task(request, context).await
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.inner.update_task(request, context).await
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.inner.cancel_task(request, context).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fixture_is_written_as_rmcp_reads_it() {
        // A fixture rmcp could not read would be left out of the lists,
        // and the suite would say only that it is missing.
        assert_eq!(content::tools().len(), 13);
        assert_eq!(asking::tools().len(), 8);
        assert_eq!(tasks::tools().len(), 4);
        assert_eq!(content::prompts().len(), 4);
        assert_eq!(asking::prompts().len(), 1);
        assert_eq!(content::resources().len(), 2);
        assert_eq!(content::templates().len(), 1);
        assert_eq!(FIXTURE_TOOLS.len(), 25);
    }
}
