//! Several `index serve` on one store behind nginx, as docs/deploy.md has
//! operators run them: requests of the current MCP protocol, REST and the
//! inbox go round-robin, each to the next host; an older MCP client's
//! session stays with one host, picked by its key.

// Each test binary uses its own part of this.
#![allow(dead_code)]

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::serve::Host;

/// The nginx configuration docs/deploy.md gives (docs/deploy/index-nginx.conf)
/// with `hosts` for its example ones and `listen` for its port, inside a
/// main configuration that keeps every file nginx writes under `prefix`.
pub fn configuration(prefix: &Path, listen: &str, hosts: &[String]) -> String {
    let given = include_str!("../../../../docs/deploy/index-nginx.conf");
    let mut ours = String::new();
    for line in given.lines() {
        if line.trim_start().starts_with("server 10.0.0.11:8080") {
            for host in hosts {
                ours += &line.replace("10.0.0.11:8080", host);
                ours.push('\n');
            }
        } else if !line.trim_start().starts_with("server 10.0.0.") {
            ours += &line.replace("listen 80;", &format!("listen {listen};"));
            ours.push('\n');
        }
    }
    assert!(ours.contains(&format!("listen {listen};")), "{ours}");
    let prefix = prefix.display();
    format!(
        "daemon off;\n\
         master_process off;\n\
         worker_processes 1;\n\
         error_log {prefix}/error.log warn;\n\
         pid {prefix}/nginx.pid;\n\
         events {{ worker_connections 1024; }}\n\
         http {{\n\
         access_log off;\n\
         client_body_temp_path {prefix}/body;\n\
         proxy_temp_path {prefix}/proxy;\n\
         fastcgi_temp_path {prefix}/fastcgi;\n\
         uwsgi_temp_path {prefix}/uwsgi;\n\
         scgi_temp_path {prefix}/scgi;\n\
         {ours}}}\n"
    )
}

/// The nginx to run: `$INDEX_TEST_NGINX`, else Debian's.
pub fn nginx() -> PathBuf {
    let nginx = std::env::var_os("INDEX_TEST_NGINX")
        .map_or_else(|| PathBuf::from("/usr/sbin/nginx"), PathBuf::from);
    assert!(
        nginx.exists(),
        "{} is missing: install nginx (apt-get install nginx-light; .ci/run does) or name one in INDEX_TEST_NGINX",
        nginx.display()
    );
    nginx
}

/// A port nothing listens on now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Hosts on one store behind a running nginx.
pub struct Balanced {
    pub hosts: Vec<Host>,
    /// The balancer's address, `127.0.0.1:port`.
    pub address: String,
    /// A host key, for each host's `/metrics`.
    pub metrics_key: String,
    nginx: Child,
    _prefix: tempfile::TempDir,
}

impl Balanced {
    /// `count` hosts on `db` (each with `env`), and nginx in front.
    pub fn start(dir: &Path, db: &str, count: usize, env: &[(&str, &str)]) -> Balanced {
        let made = crate::support::index(
            dir,
            &["keys", "create", "--user", "metrics", "--host", "--db", db],
            None,
            &[],
        );
        assert!(
            made.status.success(),
            "{}",
            String::from_utf8_lossy(&made.stderr)
        );
        let metrics_key = String::from_utf8(made.stdout).unwrap().trim().to_owned();
        let hosts: Vec<Host> = (0..count).map(|_| Host::start_with(dir, db, env)).collect();
        let addresses: Vec<String> = hosts.iter().map(|host| host.address.clone()).collect();
        let prefix = tempfile::tempdir().unwrap();
        // nginx picks no port itself; one free a moment ago is the best
        // there is, and a clash fails loudly below.
        let address = format!("127.0.0.1:{}", free_port());
        let conf = prefix.path().join("nginx.conf");
        std::fs::write(&conf, configuration(prefix.path(), &address, &addresses)).unwrap();
        let nginx = Command::new(nginx())
            .arg("-p")
            .arg(prefix.path())
            .arg("-c")
            .arg(&conf)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut balanced = Balanced {
            hosts,
            address,
            metrics_key,
            nginx,
            _prefix: prefix,
        };
        let started = Instant::now();
        while TcpStream::connect(&balanced.address).is_err() {
            assert!(
                balanced.nginx.try_wait().unwrap().is_none(),
                "nginx stopped: {}",
                std::fs::read_to_string(balanced._prefix.path().join("error.log"))
                    .unwrap_or_default()
            );
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "nginx is not listening"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        balanced
    }

    /// The base URL clients are given.
    pub fn base(&self) -> String {
        format!("http://{}", self.address)
    }

    /// Host `index`'s `/metrics`, asked of it directly.
    pub fn metrics(&self, index: usize) -> String {
        let (status, metrics) = self.hosts[index].get_text("/metrics", &self.metrics_key);
        assert_eq!(status, 200, "{metrics}");
        metrics
    }

    /// How many requests host `index` answered, by its own `/metrics`
    /// (which are not counted).
    pub fn answered_by(&self, index: usize) -> u64 {
        self.metrics(index)
            .lines()
            .filter(|line| {
                line.starts_with("index_http_requests_total{") && !line.contains("/metrics")
            })
            .filter_map(|line| line.rsplit(' ').next()?.parse::<u64>().ok())
            .sum()
    }

    /// SIGKILL to host `index`: no goodbye, as a crashed machine.
    pub fn kill(&mut self, index: usize) {
        self.hosts[index].child.kill().unwrap();
        self.hosts[index].child.wait().unwrap();
    }
}

impl Drop for Balanced {
    fn drop(&mut self) {
        let _ = self.nginx.kill();
        let _ = self.nginx.wait();
    }
}

/// What the tests' current clients declare: forms, and tasks besides.
pub const FORMS: &str = r#"{"elicitation": {"form": {}}}"#;
pub const FORMS_AND_TASKS: &str =
    r#"{"elicitation": {"form": {}}, "extensions": {"io.modelcontextprotocol/tasks": {}}}"#;

/// A client of the balancer (or of one host).
pub struct Client {
    pub http: reqwest::Client,
    pub base: String,
}

impl Client {
    /// A client of `base` (`http://host:port`).
    pub fn new(base: String) -> Client {
        Client {
            http: reqwest::Client::new(),
            base,
        }
    }

    /// A REST request with a bearer key: its status and JSON body.
    pub async fn rest(
        &self,
        method: &str,
        path: &str,
        key: &str,
        body: Option<Value>,
    ) -> (u16, Value) {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let mut request = self
            .http
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(key);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    /// One MCP request as a client of the current protocol sends it: no
    /// session, its version and `capabilities` in the request. The status
    /// and the JSON-RPC answer (`null` when there is none).
    pub async fn mcp(
        &self,
        key: &str,
        method: &str,
        mut params: Value,
        capabilities: &str,
    ) -> (u16, Value) {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "balanced", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": serde_json::from_str::<Value>(capabilities).unwrap(),
        });
        let mut request = self
            .http
            .post(format!("{}/mcp", self.base))
            .bearer_auth(key)
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", method);
        if let Some(name) = params["name"].as_str().or(params["taskId"].as_str()) {
            request = request.header("mcp-name", name);
        }
        let response = request
            .json(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        let text = response.text().await.unwrap();
        let answer = serde_json::from_str(&text).ok().or_else(|| {
            text.lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
                .find(|message| message.get("id").is_some())
        });
        (status, answer.unwrap_or(Value::Null))
    }

    /// A `tools/call` of the current protocol, with `extra` in its params.
    pub async fn call(
        &self,
        key: &str,
        tool: &str,
        arguments: Value,
        extra: Value,
        capabilities: &str,
    ) -> Value {
        let mut params = json!({"name": tool, "arguments": arguments});
        params
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        let (status, answer) = self.mcp(key, "tools/call", params, capabilities).await;
        assert_eq!(status, 200, "{answer}");
        answer
    }

    /// A `tasks/*` request about `task`, with `extra` in its params.
    pub async fn on_task(&self, key: &str, method: &str, task: &str, extra: Value) -> Value {
        let mut params = json!({"taskId": task});
        params
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        self.mcp(key, method, params, FORMS_AND_TASKS).await.1
    }

    /// Polls `task` (each poll on the next host) until its status is
    /// `status`, for at most `within`; the task then.
    pub async fn until(&self, key: &str, task: &str, status: &str, within: Duration) -> Value {
        let started = Instant::now();
        loop {
            let read = self.on_task(key, "tasks/get", task, json!({})).await;
            assert!(read.get("error").is_none(), "{read}");
            if read["result"]["status"] == status {
                return read["result"].clone();
            }
            assert!(
                started.elapsed() < within,
                "task {task} never became {status}: {read}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The negotiation as `key`'s seat sees it.
    pub async fn view(&self, key: &str, id: &str) -> Value {
        let (status, view) = self
            .rest(
                "GET",
                &format!("/opportunities/{id}/negotiation"),
                key,
                None,
            )
            .await;
        assert_eq!(status, 200, "{view}");
        view
    }
}
