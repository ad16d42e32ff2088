//! A running `index serve` on a free local port, spoken to over plain
//! HTTP/1.1, and stopped as a service manager stops it.

// Each test binary uses its own part of this.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};

use serde_json::Value;

use crate::support;

/// A running `index serve` on a free local port.
pub struct Host {
    pub child: Child,
    pub address: String,
}

impl Host {
    /// Starts `index serve` in `dir` on `db`, on a port the system picks,
    /// and reads the address from its first line.
    pub fn start(dir: &Path, db: &str) -> Host {
        Self::start_with(dir, db, &[])
    }

    /// [`Host::start`] with `env` besides the test's own.
    pub fn start_with(dir: &Path, db: &str, env: &[(&str, &str)]) -> Host {
        Self::start_with_args(dir, db, env, &[])
    }

    /// [`Host::start_with`], `args` added to `index serve`'s.
    pub fn start_with_args(dir: &Path, db: &str, env: &[(&str, &str)], args: &[&str]) -> Host {
        let mut child = support::command(dir)
            .args(["serve", "--listen", "127.0.0.1:0", "--db", db])
            .args(args)
            .env("RUST_LOG", "warn")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        // The line a script waits for, after any about the store.
        let mut line = String::new();
        while stderr.read_line(&mut line).unwrap() > 0 && !line.starts_with("listening on") {
            line.clear();
        }
        let address = line
            .strip_prefix("listening on http://")
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or_else(|| panic!("the host did not start: {line}"))
            .to_owned();
        // Keep draining its log so it never blocks on a full pipe.
        std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
        Host { child, address }
    }

    /// One request with a bearer key; the status and the JSON body (`null`
    /// when there is none).
    pub fn request(
        &self,
        method: &str,
        path: &str,
        key: &str,
        body: Option<&Value>,
    ) -> (u16, Value) {
        self.request_with(method, path, key, body, &[])
    }

    /// [`Host::request`] with `headers` besides.
    pub fn request_with(
        &self,
        method: &str,
        path: &str,
        key: &str,
        body: Option<&Value>,
        headers: &[(&str, &str)],
    ) -> (u16, Value) {
        let body = body.map(Value::to_string).unwrap_or_default();
        let extra: String = headers
            .iter()
            .map(|(name, value)| format!("{name}: {value}\r\n"))
            .collect();
        let mut stream = TcpStream::connect(&self.address).unwrap();
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nhost: {}\r\nauthorization: Bearer {key}\r\n{extra}\
             content-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            self.address,
            body.len()
        )
        .unwrap();
        let mut reply = Vec::new();
        stream.read_to_end(&mut reply).unwrap();
        let reply = String::from_utf8(reply).unwrap();
        let (head, payload) = reply.split_once("\r\n\r\n").unwrap();
        let status = head.split(' ').nth(1).unwrap().parse().unwrap();
        assert!(
            !head
                .to_ascii_lowercase()
                .contains("transfer-encoding: chunked"),
            "the host answers with a length: {head}"
        );
        (status, serde_json::from_str(payload).unwrap_or(Value::Null))
    }

    /// `GET path` with a bearer key: the status and the body as text.
    pub fn get_text(&self, path: &str, key: &str) -> (u16, String) {
        let mut stream = TcpStream::connect(&self.address).unwrap();
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nhost: {}\r\nauthorization: Bearer {key}\r\n\
             connection: close\r\n\r\n",
            self.address
        )
        .unwrap();
        let mut reply = String::new();
        stream.read_to_string(&mut reply).unwrap();
        let (head, body) = reply.split_once("\r\n\r\n").unwrap();
        (
            head.split(' ').nth(1).unwrap().parse().unwrap(),
            body.to_owned(),
        )
    }

    /// The head of `GET path` sent with no key at all.
    pub fn head_without_key(&self, path: &str) -> String {
        let mut stream = TcpStream::connect(&self.address).unwrap();
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nhost: {}\r\nconnection: close\r\n\r\n",
            self.address
        )
        .unwrap();
        let mut reply = String::new();
        stream.read_to_string(&mut reply).unwrap();
        reply.split_once("\r\n\r\n").unwrap().0.to_owned()
    }

    /// SIGTERM, then the exit status must be a clean one.
    pub fn stop(mut self) {
        let killed = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let status = self.child.wait().unwrap();
        assert!(
            status.success(),
            "the host stops cleanly on SIGTERM: {status}"
        );
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
