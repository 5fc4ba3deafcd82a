package io.tributary.broker.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import javax.security.auth.login.Configuration;

import org.apache.curator.framework.api.ACLProvider;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.ACL;

/**
 * How the broker's ZooKeeper client secures its connection and its znodes, with Kafka's ZooKeeper-mode settings:
 * <ul>
 *   <li>TLS: {@code zookeeper.ssl.client.enable}, {@code zookeeper.clientCnxnSocket} (Netty, which TLS needs, unless
 *       set), {@code zookeeper.ssl.keystore.*} (the broker's certificate, which the ensemble may require and which
 *       identifies it to ZooKeeper's x509 authentication), {@code zookeeper.ssl.truststore.*},
 *       {@code zookeeper.ssl.protocol}, {@code zookeeper.ssl.enabled.protocols}, {@code zookeeper.ssl.cipher.suites},
 *       {@code zookeeper.ssl.endpoint.identification.algorithm} (HTTPS: host name verification),
 *       {@code zookeeper.ssl.crl.enable}, {@code zookeeper.ssl.ocsp.enable}, turned into the ZooKeeper client's own
 *       {@code zookeeper.ssl.*} names;</li>
 *   <li>SASL: the ZooKeeper client logs in by itself when the JVM's JAAS file ({@code java.security.auth.login.config})
 *       has a {@code Client} section, as with Kafka;</li>
 *   <li>{@code zookeeper.set.acl}: znodes the broker creates are writable by their creator only (the broker's
 *       SASL or certificate identity) and readable by all, except the SCRAM credentials under {@code /config/users},
 *       which only their creator may read. It needs an identity: TLS with a key store, or a JAAS {@code Client}
 *       section.</li>
 * </ul>
 * The embedded development ZooKeeper is local and stays plaintext. Immutable.
 */
public final class ZkClientSecurity {

    public static final String SET_ACL = "zookeeper.set.acl";
    public static final String SSL_CLIENT_ENABLE = "zookeeper.ssl.client.enable";
    public static final String CLIENT_CNXN_SOCKET = "zookeeper.clientCnxnSocket";
    public static final String SSL_KEYSTORE_LOCATION = "zookeeper.ssl.keystore.location";
    public static final String SSL_KEYSTORE_PASSWORD = "zookeeper.ssl.keystore.password";
    public static final String SSL_KEYSTORE_TYPE = "zookeeper.ssl.keystore.type";
    public static final String SSL_TRUSTSTORE_LOCATION = "zookeeper.ssl.truststore.location";
    public static final String SSL_TRUSTSTORE_PASSWORD = "zookeeper.ssl.truststore.password";
    public static final String SSL_TRUSTSTORE_TYPE = "zookeeper.ssl.truststore.type";
    public static final String SSL_PROTOCOL = "zookeeper.ssl.protocol";
    public static final String SSL_ENABLED_PROTOCOLS = "zookeeper.ssl.enabled.protocols";
    public static final String SSL_CIPHER_SUITES = "zookeeper.ssl.cipher.suites";
    public static final String SSL_ENDPOINT_IDENTIFICATION_ALGORITHM =
            "zookeeper.ssl.endpoint.identification.algorithm";
    public static final String SSL_CRL_ENABLE = "zookeeper.ssl.crl.enable";
    public static final String SSL_OCSP_ENABLE = "zookeeper.ssl.ocsp.enable";

    /** The client's secret-free settings (no TLS, no ACLs): the embedded ZooKeeper's, and the default. */
    public static final ZkClientSecurity NONE = new ZkClientSecurity(false, Map.of(), false);

    private static final String NETTY_SOCKET = "org.apache.zookeeper.ClientCnxnSocketNetty";
    /** Where Kafka kept secrets that only the brokers may read: the SCRAM credentials. */
    private static final List<String> SENSITIVE_PATHS = List.of("/config/users");

    private final boolean tls;
    /** ZooKeeper client property name to value. */
    private final Map<String, String> clientProperties;
    private final boolean setAcl;

    private ZkClientSecurity(boolean tls, Map<String, String> clientProperties, boolean setAcl) {
        this.tls = tls;
        this.clientProperties = clientProperties;
        this.setAcl = setAcl;
    }

    /**
     * The settings in {@code values} (parsed broker properties by name).
     *
     * @throws ConfigException naming the property: TLS without a trust store, {@code zookeeper.set.acl} without an
     *                         identity, a client socket other than Netty with TLS
     */
    public static ZkClientSecurity from(Map<String, Object> values) {
        boolean tls = Boolean.TRUE.equals(values.get(SSL_CLIENT_ENABLE));
        boolean setAcl = Boolean.TRUE.equals(values.get(SET_ACL));
        Map<String, String> client = new java.util.LinkedHashMap<>();
        String socket = (String) values.get(CLIENT_CNXN_SOCKET);
        if (tls) {
            if (socket != null && !socket.equals(NETTY_SOCKET)) {
                throw new ConfigException(CLIENT_CNXN_SOCKET, socket, "TLS to ZooKeeper (" + SSL_CLIENT_ENABLE
                        + "=true) needs " + NETTY_SOCKET);
            }
            if (values.get(SSL_TRUSTSTORE_LOCATION) == null) {
                throw new ConfigException(SSL_TRUSTSTORE_LOCATION, null, "TLS to ZooKeeper (" + SSL_CLIENT_ENABLE
                        + "=true) needs the certificates the ensemble's must chain to");
            }
            client.put(ZKClientConfig.SECURE_CLIENT, "true");
            client.put(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET, NETTY_SOCKET);
            putIfSet(client, "zookeeper.ssl.keyStore.location", values.get(SSL_KEYSTORE_LOCATION));
            putIfSet(client, "zookeeper.ssl.keyStore.password", values.get(SSL_KEYSTORE_PASSWORD));
            putIfSet(client, "zookeeper.ssl.keyStore.type", values.get(SSL_KEYSTORE_TYPE));
            putIfSet(client, "zookeeper.ssl.trustStore.location", values.get(SSL_TRUSTSTORE_LOCATION));
            putIfSet(client, "zookeeper.ssl.trustStore.password", values.get(SSL_TRUSTSTORE_PASSWORD));
            putIfSet(client, "zookeeper.ssl.trustStore.type", values.get(SSL_TRUSTSTORE_TYPE));
            putIfSet(client, "zookeeper.ssl.protocol", values.get(SSL_PROTOCOL));
            putIfSet(client, "zookeeper.ssl.enabledProtocols", joined(values.get(SSL_ENABLED_PROTOCOLS)));
            putIfSet(client, "zookeeper.ssl.ciphersuites", joined(values.get(SSL_CIPHER_SUITES)));
            Object algorithm = values.get(SSL_ENDPOINT_IDENTIFICATION_ALGORITHM);
            client.put("zookeeper.ssl.hostnameVerification",
                    Boolean.toString(algorithm != null && "HTTPS".equalsIgnoreCase(algorithm.toString())));
            client.put("zookeeper.ssl.crl", String.valueOf(Boolean.TRUE.equals(values.get(SSL_CRL_ENABLE))));
            client.put("zookeeper.ssl.ocsp", String.valueOf(Boolean.TRUE.equals(values.get(SSL_OCSP_ENABLE))));
        } else if (socket != null) {
            client.put(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET, socket);
        }
        if (setAcl && !(tls && values.get(SSL_KEYSTORE_LOCATION) != null) && !jaasClientSection()) {
            throw new ConfigException(SET_ACL, true, "znodes with ACLs need the broker to have an identity in "
                    + "ZooKeeper: TLS with a key store (" + SSL_CLIENT_ENABLE + ", " + SSL_KEYSTORE_LOCATION
                    + "), or a Client section in the JAAS file of java.security.auth.login.config");
        }
        return new ZkClientSecurity(tls, Map.copyOf(client), setAcl);
    }

    private static void putIfSet(Map<String, String> client, String name, Object value) {
        if (value instanceof Password password) {
            client.put(name, password.value());
        } else if (value != null) {
            client.put(name, value.toString());
        }
    }

    private static String joined(Object list) {
        return list instanceof List<?> items && !items.isEmpty() ? String.join(",", items.stream()
                .map(Object::toString).toList()) : null;
    }

    private static boolean jaasClientSection() {
        if (System.getProperty("java.security.auth.login.config") == null) {
            return false;
        }
        try {
            return Configuration.getConfiguration().getAppConfigurationEntry(
                    System.getProperty(ZKClientConfig.LOGIN_CONTEXT_NAME_KEY,
                            ZKClientConfig.LOGIN_CONTEXT_NAME_KEY_DEFAULT)) != null;
        } catch (SecurityException e) {
            return false;
        }
    }

    public boolean tls() {
        return tls;
    }

    public boolean setAcl() {
        return setAcl;
    }

    /** The ZooKeeper client's configuration. */
    ZKClientConfig clientConfig() {
        ZKClientConfig config = new ZKClientConfig();
        clientProperties.forEach(config::setProperty);
        return config;
    }

    /**
     * The ACLs of the znodes this broker creates under {@code chroot}: with {@code zookeeper.set.acl}, creator-all and
     * world-read (creator-all only for the SCRAM credentials); without, ZooKeeper's open ACL.
     */
    ACLProvider aclProvider(String chroot) {
        return new ACLProvider() {
            @Override
            public List<ACL> getDefaultAcl() {
                return setAcl ? secure(false) : ZooDefs.Ids.OPEN_ACL_UNSAFE;
            }

            @Override
            public List<ACL> getAclForPath(String path) {
                if (!setAcl) {
                    return ZooDefs.Ids.OPEN_ACL_UNSAFE;
                }
                String inCluster = path.startsWith(chroot) ? path.substring(chroot.length()) : path;
                boolean sensitive = SENSITIVE_PATHS.stream().anyMatch(inCluster::startsWith);
                return secure(sensitive);
            }
        };
    }

    private static List<ACL> secure(boolean sensitive) {
        List<ACL> acls = new ArrayList<>(ZooDefs.Ids.CREATOR_ALL_ACL);
        if (!sensitive) {
            acls.addAll(ZooDefs.Ids.READ_ACL_UNSAFE);
        }
        return acls;
    }
}
