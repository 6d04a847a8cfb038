// SPDX-License-Identifier: Apache-2.0
/// The session agent's readers of what a connection sends, for the fuzz targets of `jv-fuzz`
/// (another module, hence public): any process of the user can connect to the agent and send
/// anything, and a command reads whatever answers at the socket. Not for anything but fuzzing.
public enum SessionWireFuzzing {
    /// Reads `bytes` as the agent reads a request; nil when refused or read back as it was sent,
    /// else what is wrong (a request accepted that encodes to other bytes).
    public static func problemReadingRequest(_ bytes: [UInt8]) -> String? {
        var reader = ByteReader(bytes)
        guard let request = SessionWire.readRequest({ reader.raw($0) }) else { return nil }
        let consumed = Array(bytes.prefix(reader.offset))
        let again: [UInt8]? = switch request.question {
        case .search(let query)?: SessionWire.request(query, session: request.session)
        case .stats(let query)?: SessionWire.request(query, session: request.session)
        case .zones(let period)?: SessionWire.request(zonesOf: period, session: request.session)
        case nil: SessionWire.request(request.kind, session: request.session)
        }
        return again == consumed ? nil : "a request was accepted that encodes otherwise: \(consumed) became \(again ?? [])"
    }

    /// Reads `bytes` as a command reads the agent's answer to a stats request (after its fixed
    /// part); nil when refused or read back as it was sent, else what is wrong.
    public static func problemReadingStatsAnswer(_ bytes: [UInt8]) -> String? {
        var reader = ByteReader(bytes)
        guard let answer = SessionWire.StatsAnswer.read({ reader.raw($0) }) else { return nil }
        let consumed = Array(bytes.prefix(reader.offset))
        return answer.bytes == consumed ? nil : "a stats answer was accepted that encodes otherwise"
    }

    /// Reads `bytes` as a command reads the agent's answer to a query (after its fixed part);
    /// nil when refused or read back as it was sent, else what is wrong.
    public static func problemReadingQueryAnswer(_ bytes: [UInt8]) -> String? {
        var reader = ByteReader(bytes)
        guard let answer = SessionWire.QueryAnswer.read({ reader.raw($0) }) else { return nil }
        let consumed = Array(bytes.prefix(reader.offset))
        return answer.bytes == consumed ? nil : "a query answer was accepted that encodes otherwise"
    }
}
