/// The app-side SDK: redeem, download with resume, verify, unpack, finish.
public enum DepotClient {}
