//! Reading a database folder's catalog: its databases, their tables (each
//! at the generation its manifest names) and views, taken as of one moment
//! even while another process commits.

use super::*;

/// [`scan`] until no write ended while it read (the writers' counter, which
/// a multi-table commit also moves before it removes its record, is the
/// same before and after): a reader never takes half of a commit.
pub(super) fn scan_steady(
    root: &Path,
    counter: &fs::File,
    generation: &Arc<AtomicU64>,
    memory: &Arc<MemoryPool>,
    held: Held,
) -> Result<Scanned> {
    let mut tries = 0;
    loop {
        let before = read_counter(counter);
        let scanned = scan(root, generation, memory, held);
        if read_counter(counter) == before {
            match scanned {
                // A data file a manifest named went: a commit is under way
                // (the counter moves when it ends). A file missing for good
                // is left to the table's first use, as on any opening.
                Err(e) if e.code == 1812 && tries < 200 => {
                    tries += 1;
                    std::thread::sleep(Duration::from_millis(1));
                }
                Err(e) if e.code == 1812 => return scan(root, generation, memory, &|_| Some(None)),
                scanned => return scanned,
            }
        }
    }
}

/// What [`scan`] is told of a table: None to open its files now, Some(g)
/// when generation g is held already (not opened again when the manifest
/// names g), Some(None) to leave every table to its first use.
pub(super) type Held<'a> = &'a dyn Fn(&Qualified) -> Option<Option<u64>>;

fn open_now(held: Held, q: &Qualified, generation: u64) -> bool {
    match held(q) {
        None => true,
        Some(g) => g.is_some_and(|g| g != generation),
    }
}

/// The default collation `DIR/db.opt` names (utf8mb4_bin without the file).
fn read_db_opt(dir: &Path) -> Result<Collation> {
    let path = dir.join(DB_OPT);
    let text = match fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(quiver_plan::default_collation())
        }
        Err(e) => return Err(QuiverError::io(&path.display().to_string(), e)),
    };
    let name = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("default-collation="))
        .unwrap_or_default();
    quiver_sql::column_collation_by_name(name)
        .map_err(|e| QuiverError::new(1105, "HY000", format!("{}: {}", path.display(), e.message)))
}

/// The databases, and the tables (and damaged ones) and views, a database
/// folder holds. A database's folder is published by a rename once
/// complete, and names beginning with `.` (not made by [`file_name`]) are
/// ones being made or dropped.
pub(super) fn scan(
    root: &Path,
    generation: &Arc<AtomicU64>,
    memory: &Arc<MemoryPool>,
    held: Held,
) -> Result<Scanned> {
    let io = |e: std::io::Error| QuiverError::io(&format!("database folder {}", root.display()), e);
    // A multi-table commit in progress (or cut by a crash) is taken whole:
    // its record is read after the manifests, so that a table switched
    // while they were read is taken at its new state with the others.
    let mut listed = Vec::new();
    let mut found = vec![(SCHEMA_NAME.to_string(), root.to_path_buf())];
    match fs::read_dir(root.join(DATABASES)) {
        Ok(entries) => {
            for entry in entries {
                let entry = entry.map_err(io)?;
                let file = entry.file_name().to_string_lossy().into_owned();
                if file.starts_with('.') || !entry.path().join(DB_OPT).exists() {
                    continue;
                }
                found.push((name_of_file(&file), entry.path()));
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io(e)),
    }
    let mut scanned = Scanned::default();
    for (name, dir) in found {
        let collation = read_db_opt(&dir)?;
        scan_schema(
            &name,
            &dir,
            generation,
            memory,
            held,
            &mut scanned,
            &mut listed,
        )?;
        scanned
            .0
            .insert(key(&name), SchemaEntry { name, collation });
    }
    let pending = quiver_storage::commit::pending_manifests(root)?;
    if !pending.is_empty() {
        for (qualified, name, path) in listed {
            if let Some(bytes) = pending.get(&path) {
                let meta = quiver_storage::table_file::parse_meta(&path, bytes.clone())?;
                let open = open_now(held, &qualified, meta.generation);
                let table = stored_table(name, &qualified.0, path, meta, generation, memory, open)?;
                scanned.1.insert(qualified.clone(), Arc::new(table));
                scanned.3.remove(&qualified);
            }
        }
    }
    Ok(scanned)
}

/// A table of a folder as its manifest `meta` describes it; with `open`,
/// its data file opened now (see [`Stored::opened`]), else on first use.
fn stored_table(
    name: String,
    database: &str,
    dir: PathBuf,
    meta: quiver_storage::TableMeta,
    generation: &Arc<AtomicU64>,
    memory: &Arc<MemoryPool>,
    open: bool,
) -> Result<Table> {
    let stored = match open {
        true => Stored::of_generation(&dir, &meta)?,
        false => Stored::default(),
    };
    Ok(Table {
        name,
        database: database.to_string(),
        schema: meta.schema.clone(),
        rows: RwLock::new(meta.rows),
        distinct: RwLock::new(meta.distinct.clone()),
        stored: RwLock::new(stored),
        dir: Some(dir),
        generation: generation.clone(),
        disk_generation: AtomicU64::new(meta.generation),
        memory: memory.clone(),
        auto_increment: AtomicU64::new(meta.auto_increment),
        version: AtomicU64::new(0),
    })
}

/// The tables and views of database `database`, in its folder `dir`.
fn scan_schema(
    database: &str,
    dir: &Path,
    generation: &Arc<AtomicU64>,
    memory: &Arc<MemoryPool>,
    held: Held,
    scanned: &mut Scanned,
    listed: &mut Vec<(Qualified, String, PathBuf)>,
) -> Result<()> {
    let io = |e: std::io::Error| QuiverError::io(&format!("database folder {}", dir.display()), e);
    let (_, tables, views, damaged) = scanned;
    for entry in fs::read_dir(dir.join("tables")).map_err(io)? {
        let entry = entry.map_err(io)?;
        let path = entry.path();
        if !path.join("table.meta").exists() {
            continue;
        }
        let name = name_of_file(&entry.file_name().to_string_lossy());
        listed.push((qualified(database, &name), name.clone(), path.clone()));
        let meta = match quiver_storage::table_file::read_meta(&path) {
            Ok(m) => m,
            Err(e) => {
                let e = if e.code == 1877 || e.code == 1812 {
                    e
                } else {
                    QuiverError::new(e.code, e.sqlstate, format!("table '{name}': {}", e.message))
                };
                damaged.insert(qualified(database, &name), (name, path, e));
                continue;
            }
        };
        let q = qualified(database, &name);
        let open = open_now(held, &q, meta.generation);
        let table = stored_table(name, database, path, meta, generation, memory, open)?;
        tables.insert(qualified(database, &table.name), Arc::new(table));
    }
    for entry in fs::read_dir(dir.join("views")).map_err(io)? {
        let path = entry.map_err(io)?.path();
        if path.extension().is_some_and(|e| e == "sql") {
            let name = name_of_file(&path.file_stem().unwrap_or_default().to_string_lossy());
            let sql = fs::read_to_string(&path).map_err(io)?;
            views.insert(qualified(database, &name), (name, sql));
        }
    }
    Ok(())
}
