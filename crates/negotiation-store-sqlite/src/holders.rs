//! Which other processes have the database open, as the system tells it.
//!
//! A live SQLite connection to a WAL database holds a POSIX read lock on the
//! file for as long as it is open. Linux lists every such lock in
//! `/proc/locks` by device and inode, so the holders can be named without
//! opening the database (which, beside this process's own connections,
//! would cancel their locks; see the `schema` module).

use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// The ids of the processes other than this one holding a lock on `path`,
/// ascending; `None` when the system does not say (no `/proc/locks`).
pub(crate) fn other_processes(path: &Path) -> Option<Vec<u32>> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let meta = std::fs::metadata(path).ok()?;
    let locks = std::fs::read_to_string("/proc/locks").ok()?;
    let file = (major(meta.dev()), minor(meta.dev()), meta.ino());
    let me = std::process::id();
    let mut pids: Vec<u32> = locks
        .lines()
        .filter_map(parse_line)
        .filter(|(_, held)| *held == file)
        .map(|(pid, _)| pid)
        .filter(|pid| *pid != me)
        .collect();
    pids.sort_unstable();
    pids.dedup();
    Some(pids)
}

/// One `/proc/locks` line: `N: POSIX ADVISORY READ PID MAJ:MIN:INODE START
/// END`, with `->` after `N:` for a waiter; the pid and the file. Locks
/// without a process (open file description locks show pid -1) are skipped.
fn parse_line(line: &str) -> Option<(u32, (u64, u64, u64))> {
    let mut fields = line.split_whitespace().filter(|field| *field != "->");
    let pid = fields.nth(4)?.parse().ok()?;
    let mut file = fields.next()?.split(':');
    let major = u64::from_str_radix(file.next()?, 16).ok()?;
    let minor = u64::from_str_radix(file.next()?, 16).ok()?;
    let inode = file.next()?.parse().ok()?;
    Some((pid, (major, minor, inode)))
}

/// The major number of a Linux `dev_t`, as glibc's `major()` splits it.
fn major(dev: u64) -> u64 {
    ((dev >> 8) & 0xfff) | ((dev >> 32) & 0xffff_f000)
}

/// The minor number of a Linux `dev_t`, as glibc's `minor()` splits it.
fn minor(dev: u64) -> u64 {
    (dev & 0xff) | ((dev >> 12) & 0xffff_ff00)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_give_their_process_and_file() {
        assert_eq!(
            parse_line("2: POSIX  ADVISORY  READ 10457 fe:00:10010626 1073741826 1073742335"),
            Some((10457, (0xfe, 0, 10_010_626)))
        );
        assert_eq!(
            parse_line("3: -> POSIX  ADVISORY  WRITE 77 103:02:42 0 EOF"),
            Some((77, (0x103, 2, 42)))
        );
        assert_eq!(
            parse_line("4: OFDLCK ADVISORY  READ -1 00:2f:9 0 EOF"),
            None
        );
        assert_eq!(parse_line("garbage"), None);
    }

    #[test]
    fn device_numbers_split_as_glibc_splits_them() {
        assert_eq!((major(0xfe00), minor(0xfe00)), (0xfe, 0));
        // A large minor and major use the high bits.
        let dev = (0x123 << 8) | 0x45 | (0xabc00 << 12) | (0x1000_u64 << 32);
        assert_eq!(major(dev), 0x123 | 0x1000);
        assert_eq!(minor(dev), 0x45 | 0xabc00);
    }
}
