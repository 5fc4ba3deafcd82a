package io.tributary.broker.storage;

import org.apache.kafka.common.errors.KafkaStorageException;

/**
 * A write to a log could not be made for want of a resource that comes back: file descriptors (EMFILE, ENFILE) or
 * disk space (ENOSPC, EDQUOT). The log is as it was before the write (a partial append is cut off again) or, where a
 * change could not be undone in memory, reloads itself from disk once the resource is back; its directory stays
 * online. Answered {@code KAFKA_STORAGE_ERROR}, which clients retry.
 */
public final class StorageResourceException extends KafkaStorageException {

    private static final long serialVersionUID = 1L;

    public StorageResourceException(String message, Throwable cause) {
        super(message, cause);
    }
}
