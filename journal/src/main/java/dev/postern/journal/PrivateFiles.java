package dev.postern.journal;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * The journal directory's privacy rule: Postern creates the directory 0700 and every file in it 0600
 * whatever the umask; it refuses a directory or file that group or others can write, and tightens
 * one they can only read (an older Postern made its files 0644 under a umask of 022) when this user
 * may change its mode, refusing it otherwise. Only the permission bits are read: ACLs are not. On a
 * file system without POSIX permissions nothing is checked.
 */
public final class PrivateFiles {
    private static final boolean POSIX = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    private static final Set<PosixFilePermission> WRITE_BY_OTHERS = EnumSet.of(PosixFilePermission.GROUP_WRITE,
            PosixFilePermission.OTHERS_WRITE);
    private static final Set<PosixFilePermission> OPEN_TO_OTHERS = EnumSet.of(PosixFilePermission.GROUP_READ,
            PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.OTHERS_READ,
            PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);

    private PrivateFiles() {
    }

    /** What an existing file or directory of the journal comes to under the rule. */
    public enum Standing {
        /** Open to nobody but its owner. */
        PRIVATE,
        /** Group or others may read (or search) it but not write: tightened when it is used. */
        READABLE_BY_OTHERS,
        /** Group or others may write it: refused. */
        WRITABLE_BY_OTHERS
    }

    /** The standing of a file or directory with {@code permissions}. */
    public static Standing standing(Set<PosixFilePermission> permissions) {
        if (permissions.stream().anyMatch(WRITE_BY_OTHERS::contains)) {
            return Standing.WRITABLE_BY_OTHERS;
        }
        return permissions.stream().anyMatch(OPEN_TO_OTHERS::contains) ? Standing.READABLE_BY_OTHERS : Standing.PRIVATE;
    }

    /** The files Postern writes in journal directory {@code dir} (journals, segments, lock files, rate-limit counts). */
    public static java.util.List<Path> journalFiles(Path dir) throws IOException {
        return JournalFiles.posternFiles(dir);
    }

    /** The attribute that creates a file 0600 (the umask only removes bits, and 0600 has none it removes but group's and others'). */
    public static FileAttribute<?>[] fileAttribute() {
        return POSIX ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))}
                : new FileAttribute<?>[0];
    }

    /**
     * Creates {@code dir} 0700 if it is missing (its missing parents as the umask makes them), then
     * applies the rule to it. Returns what was tightened, for the operator's diagnostics.
     */
    public static Optional<String> directory(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            Path parent = dir.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            try {
                if (POSIX) {
                    Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
                } else {
                    Files.createDirectory(dir);
                }
            } catch (FileAlreadyExistsException e) {
                if (!Files.isDirectory(dir)) {
                    // Something else is in its place: never change that file's mode.
                    throw e;
                }
                // Another gateway made it meanwhile.
            }
        }
        if (!POSIX) {
            return Optional.empty();
        }
        // The directory may be a symbolic link the operator made: its target is what must be private.
        return secure(dir, Files.readAttributes(dir, PosixFileAttributes.class), "rwx------", "chmod 700");
    }

    /** Creates {@code file} 0600 if it is missing, then applies the rule to it; returns what was tightened. */
    public static Optional<String> file(Path file) throws IOException {
        try {
            Files.createFile(file, fileAttribute());
        } catch (FileAlreadyExistsException e) {
            // Another process or journal made it; checked below like any existing file.
        }
        return existingFile(file);
    }

    /** Applies the rule to {@code file} if it exists (a symbolic link is refused); returns what was tightened. */
    public static Optional<String> existingFile(Path file) throws IOException {
        if (!POSIX) {
            return Optional.empty();
        }
        PosixFileAttributes attributes;
        try {
            attributes = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
        return checked(file, attributes);
    }

    /** Applies the rule to {@code file} whose attributes (read without following links) are {@code attributes}. */
    static Optional<String> checked(Path file, PosixFileAttributes attributes) throws IOException {
        if (!POSIX) {
            return Optional.empty();
        }
        if (!attributes.isRegularFile()) {
            throw new IOException(file + " is not a regular file");
        }
        return secure(file, attributes, "rw-------", "chmod 600");
    }

    private static Optional<String> secure(Path path, PosixFileAttributes attributes, String mode, String command) throws IOException {
        Set<PosixFilePermission> permissions = attributes.permissions();
        String now = PosixFilePermissions.toString(permissions);
        switch (standing(permissions)) {
            case WRITABLE_BY_OTHERS:
                throw new IOException(path + " is writable by group or others (" + now + "); Postern will not write a journal "
                        + "others can change: check it with 'postern audit verify', then " + command + " " + path);
            case READABLE_BY_OTHERS:
                try {
                    Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(mode));
                } catch (IOException e) {
                    throw new IOException(path + " is readable by group or others (" + now + ") and this user cannot change its mode"
                            + " (it is owned by " + attributes.owner().getName() + "); " + command + " " + path, e);
                }
                return Optional.of(path + " was readable by group or others (" + now + "); made " + mode);
            default:
                return Optional.empty();
        }
    }
}
