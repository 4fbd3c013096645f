//! `ferrite`: partition a disk (or disk image), install the Ferrite driver, make and fill
//! HFS volumes, and boot the result in the emulated Mac. See `ferrite --help`.

#[path = "../cli/mod.rs"]
mod cli;

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "ferrite",
    version,
    about = "Partition disks and disk images for 68k Macs: Apple partition map, the Ferrite SCSI driver, HFS volumes",
    after_help = "DISK is a disk image (e.g. a BlueSCSI/ZuluSCSI HD00_512.hda) or a raw device. \
A volume is chosen with DISK:VOLUME (a name or a number from `ferrite info`), a folder or file with DISK:VOLUME/PATH.\n\
Sizes: 512K, 800M, 2G, 1.5G, or a byte count."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OnOff {
    On,
    Off,
}

/// `--transfer-mode`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Transfer {
    /// Polled on a 68000 Mac (Plus, SE, Classic, Portable), blind elsewhere.
    Auto,
    /// Blind transfers on every Mac (falling back to polled after a failure).
    Blind,
    /// Polled transfers on every Mac.
    Polled,
}

impl Transfer {
    fn mode(self) -> ferrite_shared::driver_blob::TransferMode {
        use ferrite_shared::driver_blob::TransferMode;
        match self {
            Transfer::Auto => TransferMode::Auto,
            Transfer::Blind => TransferMode::Blind,
            Transfer::Polled => TransferMode::Polled,
        }
    }
}

/// The driver's settings on the command line.
#[derive(clap::Args)]
struct DriverSettings {
    /// Enable the drive's write cache when the driver opens it.
    #[arg(long)]
    write_cache: Option<OnOff>,
    /// How the driver moves data on the original SCSI Manager (SCSI Manager 4.3 moves it
    /// itself) [a new driver: auto].
    #[arg(long, value_enum)]
    transfer_mode: Option<Transfer>,
    /// Most blocks per SCSI command on the original SCSI Manager, 0 = no cap [a new driver: 128].
    #[arg(long, value_name = "N")]
    max_blocks: Option<u16>,
    /// Ticks (1/60 s) of write idleness after which the driver flushes the drive's write
    /// cache, 0 = never (only at shutdown and eject) [a new driver: 30, half a second].
    #[arg(long, value_name = "TICKS")]
    idle_flush: Option<u16>,
}

impl DriverSettings {
    fn options(&self) -> cli::disk::DriverOptions {
        cli::disk::DriverOptions {
            write_cache: self.write_cache.map(|w| w == OnOff::On),
            transfer: self.transfer_mode.map(Transfer::mode),
            max_blocks: self.max_blocks,
            idle_flush: self.idle_flush,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Rom {
    /// Original SCSI Manager ROM (Mac II, Quadra 800 class).
    Old,
    /// SCSI Manager 4.3 ROM (Quadra 840AV class).
    Scsi43,
    /// Original SCSI Manager ROM, then System 7.5's SCSI Manager 4.3 extension later in the
    /// boot (Quadra 700/800/900/950, Centris; 68040 only).
    Quadra,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BenchRom {
    /// The original SCSI Manager.
    Old,
    /// SCSI Manager 4.3.
    Scsi43,
}

#[derive(Subcommand)]
enum Cmd {
    /// Make a new disk: partition map, the Ferrite driver, HFS volumes, each with the Ferrite
    /// Setup application in its root folder.
    Init {
        /// The disk image to create, or a directory (the file is then named after the
        /// BlueSCSI/ZuluSCSI convention, HD<id>0_<block size>.hda, with the first free ID).
        disk: PathBuf,
        /// Disk size for a new image [default: 2G; an existing image or device keeps its size].
        #[arg(long, value_parser = cli::size::parse_size_arg)]
        size: Option<u64>,
        /// A volume: NAME or NAME:SIZE; repeat for several. The last one without a size takes
        /// the rest of the disk [default: one volume "Macintosh HD" filling the disk].
        #[arg(long = "volume", value_name = "NAME[:SIZE]")]
        volumes: Vec<String>,
        /// Logical block size of the disk: 512, 1024, 2048 or 4096 [default: from an
        /// HDxx_<size> file name, else 512].
        #[arg(long)]
        block_size: Option<u32>,
        #[command(flatten)]
        settings: DriverSettings,
        /// Install this driver blob instead of the one built into ferrite.
        #[arg(long, value_name = "FILE")]
        driver: Option<PathBuf>,
        /// Put this application (MacBinary II, type APPL) on every volume as "Ferrite Setup"
        /// instead of the one built into ferrite.
        #[arg(long, value_name = "FILE", conflicts_with = "no_setup_app")]
        setup_app: Option<PathBuf>,
        /// Leave Ferrite Setup off the volumes.
        #[arg(long)]
        no_setup_app: bool,
        /// Date the volumes YYYY-MM-DD[THH:MM[:SS]] (UTC) instead of now: the same command
        /// then makes the same disk, byte for byte.
        #[arg(long, value_name = "DATE", value_parser = cli::date::parse_date_arg)]
        date: Option<u32>,
        /// Overwrite a disk that already holds a partition map or a volume.
        #[arg(long)]
        force: bool,
    },
    /// Wrap a bare HFS volume image (raw .dsk/.img, or DiskCopy 4.2) in a partition map with the
    /// driver, and put Ferrite Setup in the volume's root folder.
    Convert {
        /// The HFS volume image.
        volume: PathBuf,
        /// The disk image to create (or a directory: see `init`).
        disk: PathBuf,
        /// Make the disk this big (the space after the volume is left free).
        #[arg(long, value_parser = cli::size::parse_size_arg)]
        size: Option<u64>,
        #[command(flatten)]
        settings: DriverSettings,
        #[arg(long, value_name = "FILE")]
        driver: Option<PathBuf>,
        /// Put this application (MacBinary II, type APPL) on the volume as "Ferrite Setup"
        /// instead of the one built into ferrite.
        #[arg(long, value_name = "FILE", conflicts_with = "no_setup_app")]
        setup_app: Option<PathBuf>,
        /// Leave Ferrite Setup off the volume.
        #[arg(long)]
        no_setup_app: bool,
        #[arg(long)]
        force: bool,
    },
    /// Copy files (and folders, recursively) onto a volume. MacBinary and AppleSingle/AppleDouble files keep their
    /// forks, type and creator; plain files get a type and creator from their extension.
    /// With --system, copy a System Folder and make the volume start up from it.
    Add {
        /// DISK, DISK:VOLUME or DISK:VOLUME/FOLDER (missing folders are created).
        target: String,
        /// Files and folders to copy.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Plain text files (type TEXT from their extension) get Mac line endings: LF and
        /// CR LF become CR.
        #[arg(long)]
        text: bool,
        /// FILES is one System Folder (System 6.0 to Mac OS 8.1): a host folder of MacBinary
        /// or AppleDouble files, or a folder on another disk or volume image written
        /// IMAGE[:VOLUME][:FOLDER] (IMAGE alone: its first volume's blessed System Folder).
        /// Copy it to the volume's root folder, bless it and write the boot blocks from its
        /// System file, so that the volume starts up without an Installer.
        #[arg(long, conflicts_with = "text")]
        system: bool,
    },
    /// Copy one HFS volume out of a partitioned disk into a bare volume image, for emulators
    /// that mount volumes rather than disks (Mini vMac).
    Extract {
        /// DISK (its first volume) or DISK:VOLUME (a name or a number from `ferrite info`).
        target: String,
        /// The volume image to write (raw HFS, e.g. "Macintosh HD.dsk").
        volume: PathBuf,
        /// Overwrite VOLUME if it exists.
        #[arg(long)]
        force: bool,
    },
    /// List a volume's files: DISK, DISK:VOLUME or DISK:VOLUME/PATH.
    Ls {
        target: String,
        /// List folders' contents too.
        #[arg(short = 'R', long)]
        recursive: bool,
    },
    /// Show the partition map, the driver and the volumes.
    Info { disk: PathBuf },
    /// Print a report to paste when asking for help: the partition map, the driver (which,
    /// version, settings) and the driver's flight record of the last boot, with hints.
    Report {
        disk: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Check the partition map, the driver checksum and every HFS volume.
    Check { disk: PathBuf },
    /// Install or update the driver in place (also over another vendor's driver); the
    /// volumes are kept intact.
    InstallDriver {
        disk: PathBuf,
        /// Change the driver's settings [default: keep the installed Ferrite driver's].
        #[command(flatten)]
        settings: DriverSettings,
        #[arg(long, value_name = "FILE")]
        driver: Option<PathBuf>,
    },
    /// Boot the disk in the emulated Mac and print what the ROM and the driver did.
    Boot {
        disk: PathBuf,
        #[arg(long, value_enum, default_value = "scsi43")]
        rom: Rom,
        /// 68000 or 68040.
        #[arg(long, default_value = "68040")]
        cpu: u32,
        /// SCSI ID [default: from an HDxx file name, else 0].
        #[arg(long)]
        id: Option<u8>,
        /// After booting, read this file through the driver and print it: [VOLUME:]PATH.
        #[arg(long, value_name = "[VOLUME:]PATH")]
        cat: Option<String>,
        /// After booting, read this application through the driver, launch it in the
        /// emulated Mac, press ⌘Q and print what its windows showed: [VOLUME:]PATH.
        #[arg(long, value_name = "[VOLUME:]PATH")]
        launch: Option<String>,
    },
    /// Benchmark the disk's driver, whatever it is, in the emulated Mac: FWB BenchTest's
    /// suite (sustained transfer, transactions per second, access time), a diskperf-style
    /// sweep (512 B to 1 MB; forward, backward, random; read and write) and a file workload.
    /// Times are emulated, split into driver, SCSI Manager and bus/disk time; the image is
    /// only read (writes go to a copy in memory).
    Bench {
        /// One or more disks: each is measured on the same profiles, then compared.
        #[arg(required = true)]
        disks: Vec<PathBuf>,
        /// Machine profile: plus, macii, se30, quadra900, 840av.
        #[arg(long, default_value = "quadra900")]
        machine: String,
        /// Disk profile: 5400, 7200, 10k (rpm) or sd (an SD-card SCSI emulator).
        #[arg(long = "disk", default_value = "7200")]
        disk_profile: String,
        /// old: the original SCSI Manager; scsi43: SCSI Manager 4.3 [default: scsi43, old on a
        /// 68000 Mac].
        #[arg(long, value_enum)]
        rom: Option<BenchRom>,
        /// The drive's write cache at power-on (a driver may change it).
        #[arg(long, value_enum, default_value = "on")]
        write_cache: OnOff,
        /// SCSI ID [default: from an HDxx file name, else 0].
        #[arg(long)]
        id: Option<u8>,
        /// Print the results as JSON.
        #[arg(long)]
        json: bool,
        /// BenchTest and the file workload only, no sweep.
        #[arg(long)]
        quick: bool,
    },
    /// Start QEMU's Quadra 800 (qemu-system-m68k -M q800) with the disk on its SCSI bus: checks
    /// the ROM, makes the PRAM file, prints the command, runs it.
    Qemu {
        /// The disk image (a partition map and a driver: `ferrite init` or `ferrite convert`).
        disk: PathBuf,
        /// The Quadra 800 ROM (1 MiB, checksum F1ACAD13).
        #[arg(long, value_name = "FILE")]
        rom: PathBuf,
        /// A CD image to put on the bus too (e.g. a Mac OS install CD; SCSI ID 3).
        #[arg(long, value_name = "ISO")]
        cdrom: Option<PathBuf>,
        /// SCSI ID of the disk, 0 to 6 [default: from an HDxx file name, else 0].
        #[arg(long)]
        id: Option<u8>,
        /// RAM in MB.
        #[arg(long, value_name = "MB", default_value_t = cli::qemu::DEFAULT_RAM_MB)]
        ram: u32,
        /// The 256-byte PRAM file (made when missing) [default: DISK with extension .pram].
        #[arg(long, value_name = "FILE")]
        pram: Option<PathBuf>,
        /// Check the files, make the PRAM file and print the command, but do not start QEMU.
        #[arg(long)]
        dry_run: bool,
        /// More arguments for QEMU, after `--` (e.g. -- -g 1152x870x8).
        #[arg(last = true, value_name = "QEMU ARGS")]
        extra: Vec<String>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let r = match cli.cmd {
        Cmd::Init {
            disk,
            size,
            volumes,
            block_size,
            settings,
            driver,
            setup_app,
            no_setup_app,
            date,
            force,
        } => cli::init::init(&cli::init::InitArgs {
            disk,
            size,
            volumes,
            block_size,
            settings: settings.options(),
            driver,
            setup_app,
            no_setup_app,
            date,
            force,
        }),
        Cmd::Convert {
            volume,
            disk,
            size,
            settings,
            driver,
            setup_app,
            no_setup_app,
            force,
        } => cli::init::convert(&cli::init::ConvertArgs {
            volume,
            disk,
            size,
            settings: settings.options(),
            driver,
            setup_app,
            no_setup_app,
            force,
        }),
        Cmd::Add {
            target,
            files,
            system: true,
            ..
        } => cli::system::add_system(&target, &files),
        Cmd::Add {
            target,
            files,
            text,
            system: false,
        } => cli::add::add(&target, &files, text),
        Cmd::Extract {
            target,
            volume,
            force,
        } => cli::extract::extract(&target, &volume, force),
        Cmd::Ls { target, recursive } => cli::info::ls(&target, recursive),
        Cmd::Info { disk } => cli::info::info(&disk),
        Cmd::Check { disk } => cli::info::check(&disk),
        Cmd::Report { disk, json } => cli::report::report(&disk, json),
        Cmd::InstallDriver {
            disk,
            settings,
            driver,
        } => cli::driver::install_driver(&disk, &settings.options(), driver.as_deref()),
        Cmd::Boot {
            disk,
            rom,
            cpu,
            id,
            cat,
            launch,
        } => cli::boot::boot(
            &disk,
            match rom {
                Rom::Old => ferrite_emu::start_manager::RomGeneration::OriginalScsiManager,
                Rom::Scsi43 => ferrite_emu::start_manager::RomGeneration::ScsiManager43,
                Rom::Quadra => ferrite_emu::start_manager::RomGeneration::Quadra,
            },
            cpu,
            id,
            cat.as_deref(),
            launch.as_deref(),
        ),
        Cmd::Bench {
            disks,
            machine,
            disk_profile,
            rom,
            write_cache,
            id,
            json,
            quick,
        } => {
            use ferrite_emu::profile::Manager;
            let manager = match rom {
                Some(BenchRom::Old) => Manager::Original,
                Some(BenchRom::Scsi43) => Manager::V43,
                None if matches!(machine.as_str(), "plus" | "macii" | "se30") => Manager::Original,
                None => Manager::V43,
            };
            cli::bench::bench(&cli::bench::BenchArgs {
                disks: &disks,
                machine: &machine,
                disk_profile: &disk_profile,
                manager,
                write_cache: write_cache == OnOff::On,
                id,
                json,
                quick,
            })
        }
        Cmd::Qemu {
            disk,
            rom,
            cdrom,
            id,
            ram,
            pram,
            dry_run,
            extra,
        } => cli::qemu::qemu(&cli::qemu::QemuArgs {
            disk,
            rom,
            cdrom,
            id,
            ram_mb: ram,
            pram,
            dry_run,
            extra,
        }),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ferrite: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
