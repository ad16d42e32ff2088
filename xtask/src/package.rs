//! `cargo xtask package`: every publishable crate packaged, in dependency
//! order, after checking it carries what a published crate needs.

use crate::metadata::publishable_in_order;

pub(crate) fn run() -> Result<(), String> {
    let packages = publishable_in_order()?;
    let mut problems = Vec::new();
    for package in &packages {
        for (field, value) in &package.fields {
            if value.is_empty() {
                problems.push(format!("{} has no `{field}`", package.name));
            }
        }
        if package.has_lib {
            let lib = std::fs::read_to_string(package.dir.join("src/lib.rs")).unwrap_or_default();
            if !lib.starts_with("//!") {
                problems.push(format!(
                    "{} has no crate documentation (`//!` at the top of src/lib.rs)",
                    package.name
                ));
            }
        }
    }
    if !problems.is_empty() {
        return Err(problems.join("\n"));
    }
    for package in &packages {
        let output = crate::cargo(&["package", "--list", "--allow-dirty", "-p", &package.name])
            .output()
            .map_err(|e| format!("could not run cargo package: {e}"))?;
        if !output.status.success() {
            return Err(format!(
                "cargo package --list -p {} failed: {}",
                package.name,
                String::from_utf8_lossy(&output.stderr)
            ));
        }
        let files = String::from_utf8_lossy(&output.stdout);
        println!("{} ({} files)", package.name, files.lines().count());
        for file in files.lines() {
            println!("    {file}");
        }
    }
    let mut args = vec!["package", "--no-verify", "--allow-dirty", "--offline"];
    for package in &packages {
        args.push("-p");
        args.push(&package.name);
    }
    let status = crate::cargo(&args)
        .status()
        .map_err(|e| format!("could not run cargo package: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err("cargo package failed".to_owned())
    }
}
