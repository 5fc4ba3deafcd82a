package io.tributary.broker.network;

import java.nio.channels.FileChannel;

import io.netty.channel.DefaultFileRegion;

/**
 * A region of a log segment file queued for {@code sendfile}: {@code count} bytes from {@code position}. Unlike its
 * parent, releasing it does not close the {@link FileChannel}: the channel belongs to the segment, which serves every
 * fetch of that segment and closes the channel itself when the segment is closed or deleted. ({@code
 * DefaultFileRegion.deallocate()} closes the channel, which would close the segment file after its first fetch.)
 *
 * <p>A subclass of {@code DefaultFileRegion} on purpose: Netty's epoll transport sends exactly that type with native
 * {@code sendfile}, and copies any other {@code FileRegion} through a buffer.
 */
final class SharedFileRegion extends DefaultFileRegion {

    private final FileChannel file;

    SharedFileRegion(FileChannel file, long position, long count) {
        super(file, position, count);
        this.file = file;
    }

    /** The segment's channel, for a TLS connection, which reads the region instead ({@link FileRegionChunks}). */
    FileChannel file() {
        return file;
    }

    @Override
    protected void deallocate() {
        // The FileChannel is the segment's; see the class comment.
    }
}
