//! The language server's answers to the editor: capabilities, the documents it follows,
//! diagnostics, hover, code actions and commands. Everything it shows comes from the daemon
//! (`watch.rs` keeps it current); this file only translates.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use serde_json::Value;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams,
    CodeActionProviderCapability, CodeActionResponse, Command, DidChangeTextDocumentParams,
    DidCloseTextDocumentParams, DidOpenTextDocumentParams, ExecuteCommandOptions,
    ExecuteCommandParams, Hover, HoverContents, HoverParams, HoverProviderCapability,
    InitializeParams, InitializeResult, InitializedParams, MarkupContent, MarkupKind,
    ServerCapabilities, ServerInfo, TextDocumentSyncCapability, TextDocumentSyncKind,
    WorkDoneProgressCancelParams,
};
use tower_lsp_server::{Client, LanguageServer};

use crate::lsp::commands;
use crate::lsp::findings::{self, Tag};
pub(crate) use crate::lsp::shared::{Shared, publish};

/// The language server.
pub(crate) struct Backend {
    client: Client,
    shared: Arc<Shared>,
}

impl Backend {
    pub(crate) fn new(client: Client, shared: Arc<Shared>) -> Self {
        Self { client, shared }
    }

    /// `window/workDoneProgress/cancel`: the cancel button of a command's progress.
    pub(crate) async fn progress_cancel(&self, params: WorkDoneProgressCancelParams) {
        for (token, cancel) in self.shared.running().iter() {
            if *token == params.token {
                cancel.cancel();
            }
        }
    }

    /// The diagnostics' tags in a code action request, or those of the findings on its lines.
    fn tags(&self, params: &CodeActionParams) -> Vec<(Tag, String)> {
        let from_editor: Vec<(Tag, String)> = params
            .context
            .diagnostics
            .iter()
            .filter(|d| d.source.as_deref() == Some(findings::SOURCE))
            .filter_map(|d| {
                Some((
                    serde_json::from_value(d.data.clone()?).ok()?,
                    d.message.clone(),
                ))
            })
            .collect();
        if !from_editor.is_empty() {
            return from_editor;
        }
        let state = self.shared.state();
        let (start, end) = (
            params.range.start.line as usize,
            params.range.end.line as usize,
        );
        let mut out: Vec<(Tag, String)> = Vec::new();
        for line in start..=end.max(start) {
            for (run, index, _) in state.at(&params.text_document.uri, line) {
                let f = &run.findings[index];
                let tag = Tag {
                    run_id: run.run.as_ref().map(|s| s.id.clone()).unwrap_or_default(),
                    fingerprint: f.fingerprint.clone(),
                    index,
                };
                if !out.iter().any(|(t, _)| *t == tag) {
                    out.push((tag, f.message.clone()));
                }
            }
        }
        out
    }

    async fn run_prompt(&self, params: ExecuteCommandParams) -> Result<Option<Value>> {
        let ask = commands::ask(
            self.shared.state().root(),
            &params.command,
            &params.arguments,
        )?;
        let token = match params.work_done_progress_params.work_done_token {
            Some(token) => Some(token),
            None if self.shared.can_progress.load(Ordering::Relaxed) => {
                let token =
                    commands::server_token(self.shared.next_token.fetch_add(1, Ordering::Relaxed));
                // An editor that has gone never answers: stop waiting with the server.
                tokio::select! {
                    made = self.client.create_work_done_progress(token.clone()) => {
                        made.ok().map(|()| token)
                    }
                    () = self.shared.stop.cancelled() => return Err(commands::cancelled()),
                }
            }
            None => None,
        };
        let cancel = self.shared.stop.child_token();
        if let Some(token) = &token {
            self.shared.running().push((token.clone(), cancel.clone()));
        }
        let result = commands::prompt(
            &self.client,
            &self.shared.target,
            ask,
            token.clone(),
            cancel.clone(),
        )
        .await;
        if let Some(token) = &token {
            self.shared.running().retain(|(t, _)| t != token);
        }
        result.map(Some)
    }
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let window = params.capabilities.window.as_ref();
        self.shared.can_progress.store(
            window.and_then(|w| w.work_done_progress).unwrap_or(false),
            Ordering::Relaxed,
        );
        self.shared.can_show.store(
            window
                .and_then(|w| w.show_document.as_ref())
                .is_some_and(|s| s.support),
            Ordering::Relaxed,
        );
        Ok(InitializeResult {
            capabilities: ServerCapabilities {
                text_document_sync: Some(TextDocumentSyncCapability::Kind(
                    TextDocumentSyncKind::INCREMENTAL,
                )),
                hover_provider: Some(HoverProviderCapability::Simple(true)),
                code_action_provider: Some(CodeActionProviderCapability::Simple(true)),
                execute_command_provider: Some(ExecuteCommandOptions {
                    commands: commands::COMMANDS.iter().map(|c| (*c).to_owned()).collect(),
                    ..ExecuteCommandOptions::default()
                }),
                ..ServerCapabilities::default()
            },
            server_info: Some(ServerInfo {
                name: "stanley".to_owned(),
                version: Some(stanley_proto::VERSION.to_owned()),
            }),
            offset_encoding: None,
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        crate::lsp::watch::spawn(self.client.clone(), self.shared.clone());
    }

    async fn shutdown(&self) -> Result<()> {
        self.shared.shut_down.store(true, Ordering::SeqCst);
        self.shared.stop.cancel();
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let doc = params.text_document;
        self.shared.state().open(doc.uri, doc.text);
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        self.shared
            .state()
            .change(&params.text_document.uri, &params.content_changes);
        publish(&self.client, &self.shared, Some(&params.text_document.uri)).await;
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        self.shared.state().close(&params.text_document.uri);
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let at = params.text_document_position_params;
        let state = self.shared.state();
        let parts: Vec<String> = state
            .at(&at.text_document.uri, at.position.line as usize)
            .into_iter()
            .filter_map(|(run, index, lines)| findings::hover(run, index, lines))
            .collect();
        if parts.is_empty() {
            return Ok(None);
        }
        Ok(Some(Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value: parts.join("\n\n---\n\n"),
            }),
            range: None,
        }))
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        let mut actions = Vec::new();
        for (tag, message) in self.tags(&params) {
            actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: format!("Stanley: open run {} in the page", tag.run_id),
                kind: Some(CodeActionKind::QUICKFIX),
                command: Some(Command {
                    title: "Open the run".to_owned(),
                    command: commands::OPEN_RUN.to_owned(),
                    arguments: Some(vec![Value::String(tag.run_id.clone())]),
                }),
                ..CodeAction::default()
            }));
            if !tag.fingerprint.is_empty() {
                actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                    title: format!("Stanley: mark “{message}” as seen for this run"),
                    kind: Some(CodeActionKind::QUICKFIX),
                    command: Some(Command {
                        title: "Mark as seen".to_owned(),
                        command: commands::MARK_SEEN.to_owned(),
                        arguments: Some(vec![
                            Value::String(tag.run_id.clone()),
                            Value::String(tag.fingerprint.clone()),
                        ]),
                    }),
                    ..CodeAction::default()
                }));
            }
        }
        Ok((!actions.is_empty()).then_some(actions))
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<Value>> {
        match params.command.as_str() {
            commands::OPEN_RUN => commands::open_run(
                &self.client,
                &self.shared.target,
                &params.arguments,
                self.shared.can_show.load(Ordering::Relaxed),
                &self.shared.stop,
            )
            .await
            .map(Some),
            commands::MARK_SEEN => commands::mark_seen(&self.shared.target, &params.arguments)
                .await
                .map(Some),
            _ => self.run_prompt(params).await,
        }
    }
}
