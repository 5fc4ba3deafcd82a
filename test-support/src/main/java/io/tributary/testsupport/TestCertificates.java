package io.tributary.testsupport;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Key stores for TLS tests, made with the JDK's {@code keytool} (PKCS12, password {@link #PASSWORD}): a CA, a broker
 * certificate it signs for {@code localhost} and {@code 127.0.0.1}, a trust store holding the CA, a self-signed
 * broker certificate nobody trusts, one signed by the CA that expired days ago, and a client certificate.
 */
public final class TestCertificates {

    public static final String PASSWORD = "test-secret";

    public final Path caKeyStore;
    public final Path brokerKeyStore;
    public final Path trustStore;
    public final Path selfSignedKeyStore;
    public final Path expiredKeyStore;
    /** A client's key (CN=app-1) signed by the CA, for listeners with {@code ssl.client.auth=required}. */
    public final Path clientKeyStore;

    private final Path dir;

    private TestCertificates(Path dir) {
        this.dir = dir;
        this.caKeyStore = dir.resolve("ca.p12");
        this.brokerKeyStore = dir.resolve("broker.p12");
        this.trustStore = dir.resolve("truststore.p12");
        this.selfSignedKeyStore = dir.resolve("self-signed.p12");
        this.expiredKeyStore = dir.resolve("expired.p12");
        this.clientKeyStore = dir.resolve("client.p12");
    }

    /** Makes every store in {@code dir} (about two seconds of keytool runs). */
    public static TestCertificates create(Path dir) throws IOException, InterruptedException {
        TestCertificates certs = new TestCertificates(Files.createDirectories(dir));
        certs.make();
        return certs;
    }

    private void make() throws IOException, InterruptedException {
        keytool("-genkeypair", "-alias", "ca", "-keyalg", "RSA", "-keysize", "2048", "-dname", "CN=Tributary Test CA",
                "-ext", "bc:c", "-validity", "30", "-keystore", caKeyStore.toString());
        keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", caKeyStore.toString(), "-file",
                dir.resolve("ca.pem").toString());
        keytool("-importcert", "-noprompt", "-alias", "ca", "-file", dir.resolve("ca.pem").toString(),
                "-keystore", trustStore.toString());
        signed(brokerKeyStore, "broker", "CN=localhost", null, "30");
        signed(expiredKeyStore, "expired", "CN=localhost", "-10d", "2");
        signed(clientKeyStore, "client", "CN=app-1,O=Tributary Tests", null, "30");
        keytool("-genkeypair", "-alias", "broker", "-keyalg", "RSA", "-keysize", "2048", "-dname", "CN=localhost",
                "-ext", "SAN=dns:localhost,ip:127.0.0.1", "-validity", "30", "-keystore",
                selfSignedKeyStore.toString());
    }

    /** A key store with a key for {@code dname} whose certificate the CA signs, valid from {@code start}. */
    private void signed(Path keyStore, String name, String dname, String start, String validityDays)
            throws IOException, InterruptedException {
        Path request = dir.resolve(name + ".csr");
        Path certificate = dir.resolve(name + ".pem");
        keytool("-genkeypair", "-alias", "broker", "-keyalg", "RSA", "-keysize", "2048", "-dname", dname,
                "-validity", "30", "-keystore", keyStore.toString());
        keytool("-certreq", "-alias", "broker", "-keystore", keyStore.toString(), "-file", request.toString());
        List<String> sign = new ArrayList<>(List.of("-gencert", "-alias", "ca", "-keystore", caKeyStore.toString(),
                "-infile", request.toString(), "-outfile", certificate.toString(), "-rfc",
                "-ext", "SAN=dns:localhost,ip:127.0.0.1", "-validity", validityDays));
        if (start != null) {
            sign.add("-startdate");
            sign.add(start);
        }
        keytool(sign.toArray(String[]::new));
        keytool("-importcert", "-noprompt", "-alias", "ca", "-file", dir.resolve("ca.pem").toString(),
                "-keystore", keyStore.toString());
        keytool("-importcert", "-alias", "broker", "-file", certificate.toString(), "-keystore",
                keyStore.toString());
    }

    private static void keytool(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        command.addAll(List.of("-storetype", "PKCS12", "-storepass", PASSWORD, "-keypass", PASSWORD));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] output = process.getInputStream().readAllBytes();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IOException("keytool did not finish: " + command);
        }
        if (process.exitValue() != 0) {
            throw new IOException("keytool failed (" + process.exitValue() + "): " + command + "\n"
                    + new String(output, StandardCharsets.UTF_8));
        }
    }
}
