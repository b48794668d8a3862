//! The RFC 8785 reference test data (vectors/rfc8785-testdata, Apache-2.0):
//! every input canonicalizes to its output file byte for byte.

#[test]
fn reference_inputs_give_reference_outputs() {
    let dir = "vectors/rfc8785-testdata";
    let mut count = 0;
    for entry in std::fs::read_dir(format!("{dir}/input")).expect("input dir") {
        let path = entry.expect("entry").path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let want = std::fs::read(format!("{dir}/output/{name}")).expect("output file");
        let got = contractpin::canonicalize(&std::fs::read(&path).unwrap())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&want),
            "{name}"
        );
        count += 1;
    }
    assert_eq!(count, 6);
}
