//! What the operating system says and does about memory: how much it can still give (so a
//! table too large for the machine is refused before it is allocated), and the advice to
//! back a large table with huge pages.

/// Megabytes of memory the system can still give (Linux's `MemAvailable`); None where it
/// does not say.
pub fn available_mb() -> Option<usize> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    mem_available_mb(&info)
}

fn mem_available_mb(meminfo: &str) -> Option<usize> {
    let line = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))?;
    let kb: usize = line.trim().strip_suffix("kB")?.trim().parse().ok()?;
    Some(kb / 1024)
}

/// Whether a table of `mb` megabytes can replace one of `current_mb`: the memory free now
/// plus what the old table gives back must hold it. Without a figure from the system the
/// allocation itself is the only check.
pub fn fits_in_memory(mb: usize, current_mb: usize, available_mb: Option<usize>) -> bool {
    available_mb.is_none_or(|free| mb <= free.saturating_add(current_mb))
}

/// Asks the system to back a table not yet written with huge pages: a probe goes to a random
/// entry, and with small pages nearly every probe also misses the address translation cache.
/// Only a hint: where it is refused, or off Linux, the table works the same, more slowly.
/// Returns whether the system took the advice (for the whole page-aligned inside of `region`).
pub fn advise_huge_pages<T>(region: &mut [std::mem::MaybeUninit<T>]) -> bool {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let start = region.as_mut_ptr() as usize;
        let end = start + std::mem::size_of_val(region);
        let first = start.next_multiple_of(PAGE);
        if end > first + PAGE {
            let len = (end - first) / PAGE * PAGE;
            // SAFETY: the range lies inside memory this vector owns and has not handed out;
            // the advice changes how it is backed, never its contents.
            let rc = unsafe { libc::madvise(first as *mut libc::c_void, len, libc::MADV_HUGEPAGE) };
            return rc == 0;
        }
        false
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = region;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_larger_than_free_memory_does_not_fit() {
        let info = "MemTotal:       24000000 kB\nMemFree:  1 kB\nMemAvailable:   20480000 kB\n";
        assert_eq!(mem_available_mb(info), Some(20000));
        assert_eq!(mem_available_mb("MemTotal: 5 kB\n"), None);
        assert_eq!(mem_available_mb("MemAvailable: lots kB\n"), None);
        // The old table's memory counts as free: 20000 + 16 MB.
        assert!(fits_in_memory(20016, 16, Some(20000)));
        assert!(!fits_in_memory(20017, 16, Some(20000)));
        assert!(!fits_in_memory(65536, 16, Some(20000)));
        assert!(fits_in_memory(65536, 16, None));
    }

    /// Linux says how much memory is available, and a running test has far more than a
    /// megabyte of it: without the figure, a Hash too large for the machine is only refused
    /// when the allocation itself fails.
    #[cfg(target_os = "linux")]
    #[test]
    fn linux_reports_the_memory_available() {
        let mb = available_mb();
        assert!(mb.is_some_and(|mb| mb >= 16), "{mb:?}");
    }

    /// The kernel marks memory advised to use huge pages with `hg` in its mappings' flags
    /// (`/proc/self/smaps`): the advice must be taken (advice reaching past the memory
    /// mapped is refused) and cover the whole page-aligned inside of the table.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_table_is_advised_to_use_huge_pages_over_its_whole_length() {
        if !std::path::Path::new("/sys/kernel/mm/transparent_hugepage/enabled").exists() {
            return; // a kernel without transparent huge pages refuses the advice
        }
        const PAGE: usize = 4096;
        // 40 MB: above the C allocator's largest threshold for serving a block from memory
        // it already holds, so this is a fresh mapping that no earlier table (another test's)
        // has advised already.
        let mut table: Vec<u64> = Vec::with_capacity(5 << 20);
        assert!(advise_huge_pages(table.spare_capacity_mut()));
        let start = table.as_ptr() as usize;
        let (first, last) = (
            start.next_multiple_of(PAGE),
            (start + 8 * table.capacity()) / PAGE * PAGE,
        );
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut covered = 0;
        let mut range = None;
        for line in smaps.lines() {
            let head = line.split_whitespace().next().unwrap_or("");
            if let Some((lo, hi)) = head.split_once('-')
                && let (Ok(lo), Ok(hi)) =
                    (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
            {
                range = Some((lo, hi));
            } else if let Some(flags) = line.strip_prefix("VmFlags:")
                && let Some((lo, hi)) = range
                && lo < last
                && hi > first
            {
                assert!(
                    flags.split_whitespace().any(|f| f == "hg"),
                    "{lo:x}-{hi:x}: {flags}"
                );
                covered += hi.min(last) - lo.max(first);
            }
        }
        assert_eq!(covered, last - first);
    }
}
