//! Server measurements from `/proc`: CPU time and peak resident set size.

/// Clock ticks per second for `/proc/*/stat` times: the kernel's `AT_CLKTCK` from
/// `/proc/self/auxv` (what `sysconf(_SC_CLK_TCK)` returns), else 100.
pub(crate) fn clock_ticks_per_sec() -> u64 {
    const AT_CLKTCK: u64 = 17;
    const WORD: usize = std::mem::size_of::<usize>();
    let Ok(auxv) = std::fs::read("/proc/self/auxv") else { return 100 };
    let word = |bytes: &[u8]| -> u64 {
        let mut buf = [0u8; WORD];
        buf.copy_from_slice(bytes);
        usize::from_ne_bytes(buf) as u64
    };
    auxv.chunks_exact(2 * WORD)
        .map(|pair| (word(&pair[..WORD]), word(&pair[WORD..])))
        .find(|&(key, _)| key == AT_CLKTCK)
        .map(|(_, ticks)| ticks)
        .filter(|&ticks| ticks > 0)
        .unwrap_or(100)
}

/// utime + stime of a process (all its threads), in clock ticks.
pub(crate) fn cpu_ticks(pid: &str) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses: fields start after the last ')'.
    let fields: Vec<&str> = stat[stat.rfind(')')? + 1..].split_whitespace().collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(utime + stime)
}

/// The peak resident set size (`VmHWM`) of a process, in kB.
pub(crate) fn peak_rss_kb(pid: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line["VmHWM:".len()..].trim().trim_end_matches("kB").trim().parse().ok()
}
