package io.tributary.broker.network;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;

/**
 * The socket transport under the event loops: Linux epoll through Netty's native library when it loads, JDK NIO
 * otherwise. Both send a {@link SharedFileRegion} with {@code sendfile}: epoll natively for any
 * {@code DefaultFileRegion}, NIO through {@code FileChannel.transferTo} onto the socket channel.
 */
enum Transport {

    EPOLL {
        @Override
        IoHandlerFactory ioHandlerFactory() {
            return EpollIoHandler.newFactory();
        }

        @Override
        Class<? extends ServerChannel> serverChannelClass() {
            return EpollServerSocketChannel.class;
        }
    },

    NIO {
        @Override
        IoHandlerFactory ioHandlerFactory() {
            return NioIoHandler.newFactory();
        }

        @Override
        Class<? extends ServerChannel> serverChannelClass() {
            return NioServerSocketChannel.class;
        }
    };

    abstract IoHandlerFactory ioHandlerFactory();

    abstract Class<? extends ServerChannel> serverChannelClass();

    /** Epoll where the native library is present and works (Linux x86_64), NIO everywhere else. */
    static Transport best() {
        return Epoll.isAvailable() ? EPOLL : NIO;
    }
}
