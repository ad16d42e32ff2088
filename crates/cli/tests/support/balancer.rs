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
